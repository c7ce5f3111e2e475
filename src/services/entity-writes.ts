import type { AppContext } from '../context.js';
import type { NgsiAttribute } from '../domain/asset-body.js';
import type { AssetWrite, CreateOutcome, UpdateOutcome } from '../domain/asset-writes.js';
import type { AttributeWriteMode } from '../domain/attribute-writes.js';
import { attributesOf, type BatchAction, type BatchEntity } from '../domain/batch-update.js';
import { describeFailures, type EntityFailure } from '../domain/entity-failures.js';
import { createOperation, deleteOperation, removedAttributes, removesPosition, updateOperation } from '../domain/entity-operations.js';
import { tooManyAttributes } from '../domain/attribute-bounds.js';
import { AppError, badRequest } from '../domain/errors.js';
import { findLiveAssets } from '../storage/repositories/assets.js';
import type { SiteRecord } from '../storage/repositories/sites.js';
import { noSite, operationFrame } from './federation.js';

/**
 * NGSI v2 writes of entities, one or a batch, over the caller's own site: each
 * entity passes the checks of its single operation (src/domain/entity-operations.ts)
 * and the writes of a request go to the write pipeline together, so one commit
 * holds them. Not atomic: each entity is written or fails alone.
 */

/** What a write does to each entity. */
export type EntityAction =
  | { kind: 'attributes'; mode: AttributeWriteMode; /** A missing entity is created (batch append, upsert) rather than not found. */ createMissing: boolean }
  | { kind: 'delete' };

/** The single operation each batch action type stands for (Orion's manual, §Batch Operations). */
export const BATCH_ACTIONS: Record<BatchAction, EntityAction> = {
  append: { kind: 'attributes', mode: 'append', createMissing: true },
  appendStrict: { kind: 'attributes', mode: 'appendStrict', createMissing: true },
  update: { kind: 'attributes', mode: 'update', createMissing: false },
  replace: { kind: 'attributes', mode: 'replace', createMissing: false },
  delete: { kind: 'delete' },
};

/** An entity that was not written: why (as Orion describes it) and, when a check refused it, that check's error. */
export interface FailedEntity {
  failure: EntityFailure;
  error?: AppError;
}

export interface EntityWriteReport {
  written: number;
  /** In request order. */
  failures: FailedEntity[];
}

/** `existed`: a create of this entity found its id taken (then an update that finds no asset means another type has it). */
type Attempt = { index: number; step: 'update' | 'create' | 'delete'; existed?: boolean };

/** Steps an entity may take: an append tries update, then create, then update again (another request created it meanwhile). */
const MAX_ROUNDS = 3;

function invalid(entity: BatchEntity, error: AppError): FailedEntity {
  return { failure: { entity, kind: 'invalid', reason: error.message }, error };
}

/** A refused create (it wrote nothing), as the entity's failure. */
function refusedCreate(entity: BatchEntity, outcome: Exclude<CreateOutcome, { kind: 'created' }>, siteId: string): FailedEntity {
  if (outcome.kind === 'exists') return invalid(entity, new AppError('ASSET_EXISTS'));
  if (outcome.kind === 'quota-reached') return invalid(entity, new AppError('SITE_QUOTA_REACHED'));
  return invalid(entity, noSite(siteId));
}

function refusedUpdate(entity: BatchEntity, outcome: Exclude<UpdateOutcome, 'updated' | 'not-found'>, maxAttributes: number): FailedEntity {
  if (outcome === 'too-many-attributes') return invalid(entity, badRequest(tooManyAttributes(maxAttributes)));
  return { failure: { entity, kind: outcome.refused, attributes: outcome.attributes } };
}

/** One write goes alone (no grouping needed); several go together, in one commit. */
async function submit(ctx: AppContext, writes: readonly AssetWrite[]): Promise<unknown[]> {
  if (writes.length === 1) return [await ctx.store.writes.write(writes[0] as AssetWrite)];
  const settled = await ctx.store.writes.writeAll(writes);
  const failed = settled.find((s) => s.status === 'rejected');
  // Refusals are outcomes, not errors: a rejection is the store failing, which no entity of the request escapes.
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
}

/** The stored attributes of the entities whose deleted attributes include their position. */
async function storedForRemovals(ctx: AppContext, entities: readonly BatchEntity[]): Promise<Map<string, Record<string, NgsiAttribute>>> {
  const ids = entities.filter((e) => removesPosition(removedAttributes(e))).map((e) => e.id);
  const stored = new Map<string, Record<string, NgsiAttribute>>();
  if (ids.length === 0) return stored;
  for (const [id, asset] of await findLiveAssets(ctx.store, ids)) stored.set(id, JSON.parse(asset.attrs) as Record<string, NgsiAttribute>);
  return stored;
}

/** Writes the entities as `action` says, in order; what was written and what failed. */
export async function writeEntities(
  ctx: AppContext, site: SiteRecord, action: EntityAction, entities: readonly BatchEntity[], options: { keyValues: boolean },
): Promise<EntityWriteReport> {
  const frame = operationFrame(ctx, site, options.keyValues);
  const stored = action.kind === 'delete' ? await storedForRemovals(ctx, entities) : new Map<string, Record<string, NgsiAttribute>>();
  const outcome: Array<FailedEntity | 'written' | undefined> = new Array(entities.length);
  let attempts: Attempt[] = entities.map((_, index) => ({ index, step: action.kind === 'delete' ? 'delete' : 'update' }));

  for (let round = 1; attempts.length > 0; round++) {
    const sent: Attempt[] = [];
    const writes: AssetWrite[] = [];
    for (const attempt of attempts) {
      const entity = entities[attempt.index] as BatchEntity;
      try {
        if (attempt.step === 'delete') writes.push(deleteOperation(entity, frame, stored.get(entity.id)));
        else if (attempt.step === 'create') writes.push(createOperation(entity.body, frame));
        else writes.push(updateOperation(entity, entity.attributes, action.kind === 'attributes' ? action.mode : 'append', frame));
        sent.push(attempt);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        outcome[attempt.index] = invalid(entity, error);
      }
    }
    const results = writes.length > 0 ? await submit(ctx, writes) : [];
    const next: Attempt[] = [];
    const retry = action.kind === 'attributes' && action.createMissing && round < MAX_ROUNDS;
    sent.forEach((attempt, k) => {
      const entity = entities[attempt.index] as BatchEntity;
      const result = results[k];
      if (attempt.step === 'create') {
        const created = result as CreateOutcome;
        if (created.kind === 'created') outcome[attempt.index] = 'written';
        else if (created.kind === 'exists' && retry) next.push({ index: attempt.index, step: 'update', existed: true });
        else outcome[attempt.index] = refusedCreate(entity, created, site.id);
        return;
      }
      // A delete of the entity answers whether it was found; a removal of attributes is an update.
      if (typeof result === 'boolean') {
        outcome[attempt.index] = result ? 'written' : { failure: { entity, kind: 'not-found' } };
        return;
      }
      const updated = result as UpdateOutcome;
      if (updated === 'updated') outcome[attempt.index] = 'written';
      else if (updated !== 'not-found') outcome[attempt.index] = refusedUpdate(entity, updated, ctx.config.maxAttributes);
      else if (attempt.existed) outcome[attempt.index] = invalid(entity, new AppError('ASSET_EXISTS'));
      else if (retry && attempt.step === 'update') next.push({ index: attempt.index, step: 'create' });
      else outcome[attempt.index] = { failure: { entity, kind: 'not-found' } };
    });
    attempts = next;
  }

  const failures = outcome.filter((o): o is FailedEntity => typeof o === 'object');
  return { written: outcome.length - failures.length, failures };
}

/**
 * The answer to a single-entity operation that failed: its check's own error,
 * 404 when the entity (or, with `attribute`, the attribute) is not there, 422
 * naming the attributes otherwise.
 */
export function singleFailure(failed: FailedEntity, attributeLevel = false): AppError {
  const { failure } = failed;
  if (failed.error) return failed.error;
  if (failure.kind === 'not-found') return new AppError('ASSET_NOT_FOUND');
  if (attributeLevel && failure.kind === 'missing') return new AppError('ATTRIBUTE_NOT_FOUND');
  return new AppError('UNPROCESSABLE', describeFailures([failure]));
}

/** Writes one entity; throws its failure as the single operation answers it. */
export async function writeEntity(
  ctx: AppContext, site: SiteRecord, action: EntityAction, entity: BatchEntity, options: { keyValues: boolean; attributeLevel?: boolean },
): Promise<void> {
  const report = await writeEntities(ctx, site, action, [entity], options);
  const failed = report.failures[0];
  if (failed) throw singleFailure(failed, options.attributeLevel);
}

/**
 * POST /v2/entities?options=upsert: the body is judged as the create it may
 * be, whether or not the asset exists; then created, or its attributes appended.
 */
export async function upsertEntity(ctx: AppContext, site: SiteRecord, body: unknown, options: { keyValues: boolean }): Promise<{ location: string }> {
  const whole = body as Record<string, unknown>;
  const { id, type } = createOperation(whole, operationFrame(ctx, site, options.keyValues)).input.asset;
  await writeEntity(ctx, site, BATCH_ACTIONS.append, { id, type, body: whole, attributes: attributesOf(whole) }, options);
  return { location: `/v2/entities/${id}?type=${type}` };
}
