import type { AppContext } from '../context.js';
import { tooManyAttributes } from '../domain/attribute-bounds.js';
import type { CreateOutcome } from '../domain/asset-writes.js';
import { createOperation, updateOperation, type OperationFrame } from '../domain/entity-operations.js';
import { AppError, badRequest } from '../domain/errors.js';
import { assertOwnAssetId } from '../domain/urn.js';
import type { SiteRecord } from '../storage/repositories/sites.js';
import type { Store } from '../storage/store.js';
import { findSiteCached } from './site-directory.js';

/**
 * The federation write path: validate a site's request (src/domain), then
 * write it through the store's write pipeline (src/storage/write-pipeline.ts),
 * which commits it with the writes that arrive beside it. The HTTP routes and
 * the demo loader both push through here, so every asset obeys the same rules.
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

/** A client whose site was never registered (or is gone) cannot push. */
export const noSite = (siteId: string): AppError => badRequest(`ClientID wrong: no site ${siteId} is registered on this platform`);

/** The caller's site. */
export async function requireSite(ctx: AppContext, siteId: string): Promise<SiteRecord> {
  const site = await findSiteCached(ctx.store, siteId, ctx.clock.now());
  if (!site) throw noSite(siteId);
  return site;
}

/** The caller's site: the record the route already looked up, or its id. */
type SiteRef = SiteRecord | string;
const siteOf = (ctx: AppContext, site: SiteRef): Promise<SiteRecord> => (typeof site === 'string' ? requireSite(ctx, site) : Promise.resolve(site));

/** A refused create (it wrote nothing), as the client is answered. */
function refusedCreate(outcome: Exclude<CreateOutcome, { kind: 'created' }>, siteId: string): AppError {
  if (outcome.kind === 'exists') return new AppError('ASSET_EXISTS');
  if (outcome.kind === 'quota-reached') return new AppError('SITE_QUOTA_REACHED');
  return noSite(siteId);
}

/** What the writes of one request share: the site, the time it arrived, and the platform's bounds. */
export function operationFrame(ctx: AppContext, site: SiteRecord, keyValues: boolean): OperationFrame {
  return { site, receivedAt: ctx.clock.now(), defaultQuota: ctx.config.siteQuota, keyValues, maxAttributes: ctx.config.maxAttributes, clockSkewMs: ctx.config.clockSkewMs };
}

/** POST /v2/entities: 201 with a Location, 422 when a live asset has that id, 400 at quota. */
export async function createAsset(ctx: AppContext, siteRef: SiteRef, body: unknown): Promise<CreatedAsset> {
  const site = await siteOf(ctx, siteRef);
  const write = createOperation(body, operationFrame(ctx, site, false));
  const { asset } = write.input;
  let types = knownTypes.get(ctx.store);
  if (!types) knownTypes.set(ctx.store, (types = new Set()));
  const typeKnown = types.has(asset.type);
  const outcome = await ctx.store.writes.write({ ...write, input: { ...write.input, registerType: !typeKnown } });
  if (outcome.kind !== 'created') throw refusedCreate(outcome, asset.urn.site);
  // Only once committed: a rolled-back create must not leave the type marked as stored.
  if (!typeKnown) {
    if (types.size >= KNOWN_TYPES_MAX) types.clear();
    types.add(asset.type);
  }
  return { id: asset.id, type: asset.type, location: `/v2/entities/${asset.id}?type=${asset.type}` };
}

/** POST /v2/entities/{id}/attrs: updates existing attributes and appends new ones; 404 when absent. */
export async function updateAsset(ctx: AppContext, siteRef: SiteRef, assetId: string, body: unknown, options: EntityOptions = {}): Promise<void> {
  const site = await siteOf(ctx, siteRef);
  const outcome = await ctx.store.writes.write(updateOperation({ id: assetId, type: options.type }, body, 'append', operationFrame(ctx, site, false)));
  // Append semantics refuse no attribute for its mode.
  if (outcome === 'not-found') throw new AppError('ASSET_NOT_FOUND');
  if (outcome === 'too-many-attributes') throw badRequest(tooManyAttributes(ctx.config.maxAttributes));
  if (outcome !== 'updated') throw new AppError('ASSET_NOT_FOUND');
}

/** DELETE /v2/entities/{id}: the asset leaves discovery, its history stays; 404 when absent. */
export async function deleteAsset(ctx: AppContext, siteRef: SiteRef, assetId: string, options: EntityOptions = {}): Promise<void> {
  const site = await siteOf(ctx, siteRef);
  assertOwnAssetId(assetId, site.id);
  const found = await ctx.store.writes.write({ kind: 'delete', input: { id: assetId, expectedType: options.type, now: ctx.clock.now() } });
  if (!found) throw new AppError('ASSET_NOT_FOUND');
}
