import { emptyAttributes, readAssetCreation, readAssetUpdate, type NgsiAttribute } from './asset-body.js';
import type { AssetWrite } from './asset-writes.js';
import type { AttributeWriteMode } from './attribute-writes.js';
import type { BatchEntity } from './batch-update.js';
import { assertObservedNotInFuture } from './clock-skew.js';
import { badRequest } from './errors.js';
import { normalizeKeyValues } from './ngsi-key-values.js';
import { positionFromAttributes, type Position } from './position.js';
import { TIME_INSTANT } from './time-instant.js';
import { assertOwnAssetId } from './urn.js';

/**
 * An entity of an NGSI write turned into the typed write the pipeline takes,
 * through the checks of its single operation (./asset-body.ts: the same for
 * one entity as for each of a batch). Each function throws the AppError of
 * the first check that fails.
 */

/** What the operations of one request share. */
export interface OperationFrame {
  site: { id: string } & Position;
  receivedAt: number;
  /** The quota of a site that has none of its own. */
  defaultQuota: number;
  /** `options=keyValues`: attributes came as bare values. */
  keyValues: boolean;
  /** MAX_ATTRIBUTES: the attributes an asset may have once written. */
  maxAttributes: number;
  /** CLOCK_SKEW: how far ahead of `receivedAt` a TimeInstant may be. */
  clockSkewMs: number;
}

/** The entity a write names: its id, and the type it must have when given (`?type=`, or the entity's own). */
export interface EntityRef {
  id: string;
  type: string | undefined;
}

/** The attributes a position is read from (./position.ts). */
const POSITION_ATTRIBUTES = new Set(['location', 'position']);

const siteCentre = (frame: OperationFrame): Position => ({ latitude: frame.site.latitude, longitude: frame.site.longitude });

/** A request's text as normalized attributes. */
const readable = (text: unknown, frame: OperationFrame): unknown => (frame.keyValues ? normalizeKeyValues(text) : text);

/** Create the entity (POST /v2/entities; its checks include the id's site). */
export function createOperation(body: unknown, frame: OperationFrame): Extract<AssetWrite, { kind: 'create' }> {
  const creation = readAssetCreation(readable(body, frame), frame.site.id, { maxAttributes: frame.maxAttributes });
  assertObservedNotInFuture(creation.recordedAt, frame.receivedAt, frame.clockSkewMs);
  return { kind: 'create', input: {
    asset: { ...creation, position: positionFromAttributes(creation.attributes, frame.site), receivedAt: frame.receivedAt },
    defaultQuota: frame.defaultQuota,
    registerType: true,
  } };
}

/**
 * Write the entity's attributes to the live asset, as `mode` says. A replace
 * without a position puts the asset back at its site's centre, as a create would.
 */
export function updateOperation(entity: EntityRef, attributes: unknown, mode: AttributeWriteMode, frame: OperationFrame): Extract<AssetWrite, { kind: 'update' }> {
  // Another site's entity is refused before anything of it is read.
  assertOwnAssetId(entity.id, frame.site.id);
  const update = readAssetUpdate(readable(attributes, frame), { maxAttributes: frame.maxAttributes });
  assertObservedNotInFuture(update.recordedAt, frame.receivedAt, frame.clockSkewMs);
  const position = positionFromAttributes(update.attributes, frame.site) ?? (mode === 'replace' ? siteCentre(frame) : undefined);
  return { kind: 'update', input: {
    id: entity.id, expectedType: entity.type, changes: update.attributes, mode, position, recordedAt: update.recordedAt, receivedAt: frame.receivedAt,
    maxAttributes: frame.maxAttributes,
  } };
}

/** The attributes an entity of a delete names (none: the entity itself). */
export const removedAttributes = (entity: BatchEntity): string[] => Object.keys(entity.attributes);

/** Does removing these attributes take the asset's position away (so that it must be read first)? */
export const removesPosition = (names: readonly string[]): boolean => names.some((n) => POSITION_ATTRIBUTES.has(n));

/**
 * Delete the entity, or the attributes it names (`stored`: the asset's
 * attributes, read when a position attribute goes, to place it by what stays).
 */
export function deleteOperation(entity: BatchEntity, frame: OperationFrame, stored?: Readonly<Record<string, NgsiAttribute>>): AssetWrite {
  assertOwnAssetId(entity.id, frame.site.id);
  const names = removedAttributes(entity);
  if (names.length === 0) return { kind: 'delete', input: { id: entity.id, expectedType: entity.type, now: frame.receivedAt } };
  if (names.includes(TIME_INSTANT)) throw badRequest('TimeInstant cannot be removed: every asset carries the time it was observed');
  let position: Position | undefined;
  if (stored && removesPosition(names)) {
    const staying = Object.assign(emptyAttributes(), stored);
    for (const name of names) delete staying[name];
    position = positionFromAttributes(staying, frame.site) ?? siteCentre(frame);
  }
  return { kind: 'update', input: {
    id: entity.id, expectedType: entity.type, changes: emptyAttributes(), removes: names, position, recordedAt: 0, receivedAt: frame.receivedAt,
  } };
}
