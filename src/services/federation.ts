import type { AppContext } from '../context.js';
import { readAssetCreation, readAssetUpdate, readingValue, type NgsiAttributes } from '../domain/asset-body.js';
import { AppError, badRequest } from '../domain/errors.js';
import { positionFromAttributes } from '../domain/position.js';
import { assertOwnAssetId } from '../domain/urn.js';
import {
  findLiveAsset, type AssetChange, type CreateInput, type ReadingInput, type StoredAsset,
} from '../storage/repositories/assets.js';
import type { SiteRecord } from '../storage/repositories/sites.js';
import type { Store } from '../storage/store.js';
import { findSiteCached } from './site-directory.js';
import { WriteGroups, type ItemOutcome } from './write-groups.js';

/**
 * The federation write path: validate a site's request (src/domain), then
 * write it in one transaction (src/storage). The HTTP routes and the demo
 * loader both push through here, so every asset obeys the same rules.
 */

export interface CreatedAsset {
  id: string;
  type: string;
  /** The Location of the new asset, as Orion gives it. */
  location: string;
}

export interface EntityOptions {
  /** `?type=`: when given, the asset must be of that type, else it is not found (as Orion). */
  type?: string | undefined;
}

/** Asset types already in asset_types, per store: saves a statement on most creates. */
const knownTypes = new WeakMap<Store, Set<string>>();
const KNOWN_TYPES_MAX = 10_000;

/** The caller's site; a client whose site was never registered cannot push. */
export async function requireSite(ctx: AppContext, siteId: string): Promise<SiteRecord> {
  const site = await findSiteCached(ctx.store, siteId, ctx.clock.now());
  if (!site) throw badRequest(`ClientID wrong: no site ${siteId} is registered on this platform`);
  return site;
}

const creates = new WeakMap<Store, WriteGroups<CreateInput, void>>();
const updates = new WeakMap<Store, WriteGroups<AssetChange, void>>();

/** Creates of one write job: each refused one (exists, quota) has written nothing. */
function createsOf(store: Store): WriteGroups<CreateInput, void> {
  let groups = creates.get(store);
  if (!groups) {
    groups = new WriteGroups(async (take) => {
      let items: CreateInput[] = [];
      const outcomes = await store.writes.runOperation('createAssetRecords', (): [CreateInput[]] => [(items = take())]);
      return outcomes.map((outcome, i): ItemOutcome<void> => {
        if (outcome.kind === 'created') return { ok: true, value: undefined };
        if (outcome.kind === 'exists') return { ok: false, error: new AppError('ASSET_EXISTS') };
        if (outcome.kind === 'quota-reached') return { ok: false, error: new AppError('SITE_QUOTA_REACHED') };
        return { ok: false, error: badRequest(`ClientID wrong: no site ${(items[i] as CreateInput).asset.urn.site} is registered on this platform`) };
      });
    });
    creates.set(store, groups);
  }
  return groups;
}

/** Updates of one write job: an unknown asset has written nothing. */
function updatesOf(store: Store): WriteGroups<AssetChange, void> {
  let groups = updates.get(store);
  if (!groups) {
    groups = new WriteGroups(async (take) => {
      const found = await store.writes.runOperation('updateAssetRecords', (): [AssetChange[]] => [take()]);
      return found.map((ok): ItemOutcome<void> => (ok ? { ok: true, value: undefined } : { ok: false, error: new AppError('ASSET_NOT_FOUND') }));
    });
    updates.set(store, groups);
  }
  return groups;
}

const readingsOf = (attributes: NgsiAttributes): ReadingInput[] =>
  Object.keys(attributes).map((name) => {
    const a = attributes[name] as NgsiAttributes[string];
    return { name, type: a.type, value: readingValue(a.value) };
  });

/** POST /v2/entities: 201 with a Location, 422 when a live asset has that id, 400 at quota. */
export async function createAsset(ctx: AppContext, siteId: string, body: unknown): Promise<CreatedAsset> {
  const site = await requireSite(ctx, siteId);
  const creation = readAssetCreation(body, site.id);
  const position = positionFromAttributes(creation.attributes, site);
  const receivedAt = ctx.clock.now();
  let types = knownTypes.get(ctx.store);
  if (!types) knownTypes.set(ctx.store, (types = new Set()));
  const typeKnown = types.has(creation.type);

  await createsOf(ctx.store).submit({
    asset: {
      id: creation.id,
      type: creation.type,
      urn: creation.urn,
      attributes: creation.attributes,
      position,
      recordedAt: creation.recordedAt,
      receivedAt,
      readings: readingsOf(creation.attributes),
    },
    defaultQuota: ctx.config.siteQuota,
    registerType: !typeKnown,
  });
  // Only once committed: a rolled-back create must not leave the type marked as stored.
  if (!typeKnown) {
    if (types.size >= KNOWN_TYPES_MAX) types.clear();
    types.add(creation.type);
  }
  return { id: creation.id, type: creation.type, location: `/v2/entities/${creation.id}?type=${creation.type}` };
}

/** POST /v2/entities/{id}/attrs: updates existing attributes and appends new ones; 404 when absent. */
export async function updateAsset(ctx: AppContext, siteId: string, assetId: string, body: unknown, options: EntityOptions = {}): Promise<void> {
  const site = await requireSite(ctx, siteId);
  assertOwnAssetId(assetId, site.id);
  const update = readAssetUpdate(body);
  const position = positionFromAttributes(update.attributes, site);
  const receivedAt = ctx.clock.now();
  await updatesOf(ctx.store).submit({
    id: assetId,
    expectedType: options.type,
    changes: update.attributes,
    position,
    recordedAt: update.recordedAt,
    receivedAt,
    readings: readingsOf(update.attributes),
  });
}

/** DELETE /v2/entities/{id}: the asset leaves discovery, its history stays; 404 when absent. */
export async function deleteAsset(ctx: AppContext, siteId: string, assetId: string, options: EntityOptions = {}): Promise<void> {
  const site = await requireSite(ctx, siteId);
  assertOwnAssetId(assetId, site.id);
  const now = ctx.clock.now();
  if (!(await ctx.store.writes.runOperation('deleteAssetRecord', (): [string, string | null, number] => [assetId, options.type ?? null, now]))) throw new AppError('ASSET_NOT_FOUND');
}

/** GET /v2/entities/{id}: the site's own live asset, as stored. */
export async function getAsset(ctx: AppContext, siteId: string, assetId: string, options: EntityOptions = {}): Promise<StoredAsset> {
  const site = await requireSite(ctx, siteId);
  assertOwnAssetId(assetId, site.id);
  const asset = await findLiveAsset(ctx.store, assetId);
  if (!asset || (options.type !== undefined && asset.type !== options.type)) throw new AppError('ASSET_NOT_FOUND');
  return asset;
}
