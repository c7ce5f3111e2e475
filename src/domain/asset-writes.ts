import { readingValue, type NgsiAttribute, type NgsiAttributes } from './asset-body.js';
import type { AttributeRefusal, AttributeWriteMode } from './attribute-writes.js';
import type { Position } from './position.js';
import type { AssetUrn } from './urn.js';

/**
 * What the federation asks the store to write, as typed values: the write
 * pipeline queues them, each dialect writes them in batches.
 */

/** One reading per attribute of the request. */
export interface ReadingInput {
  name: string;
  type: string;
  /** The value as a string (JSON for non-strings). */
  value: string;
}

/** The readings a write appends to the history: one per attribute it sets, in the request's order. */
export function readingsOf(attributes: NgsiAttributes): ReadingInput[] {
  return Object.keys(attributes).map((name) => {
    const a = attributes[name] as NgsiAttribute;
    return { name, type: a.type, value: readingValue(a.value) };
  });
}

export interface NewAsset {
  id: string;
  type: string;
  urn: AssetUrn;
  attributes: NgsiAttributes;
  /** From the request's attributes; undefined: the site's centre. */
  position: Position | undefined;
  recordedAt: number;
  receivedAt: number;
}

export interface CreateInput {
  asset: NewAsset;
  /** The type may be missing from asset_types: register it if the asset is created. */
  registerType: boolean;
  /** The quota of a site that has none of its own. */
  defaultQuota: number;
}

export type CreateOutcome =
  | { kind: 'created'; seq: number }
  | { kind: 'exists' }
  | { kind: 'quota-reached'; quota: number }
  | { kind: 'no-site' };

export interface AssetChange {
  id: string;
  /** `?type=` of the request: when given, the asset must have that type (as Orion). */
  expectedType: string | undefined;
  changes: NgsiAttributes;
  /** How `changes` meet the stored attributes (./attribute-writes.ts); default `append`. */
  mode?: AttributeWriteMode;
  /** Attributes the write removes; each must exist. */
  removes?: string[];
  /** A new position when the request carries one. */
  position: Position | undefined;
  recordedAt: number;
  receivedAt: number;
  /** The most attributes the asset may carry once updated (MAX_ATTRIBUTES); unset: no bound. */
  maxAttributes?: number;
}

/**
 * What an update came to: written; its asset not found (or of another type
 * than asked); refused, for it would take the asset beyond its attributes; or
 * refused for the attributes its mode needs or forbids (nothing written).
 */
export type UpdateOutcome = 'updated' | 'not-found' | 'too-many-attributes' | AttributeRefusal;

export interface AssetDeletion {
  id: string;
  /** `?type=` of the request: when given, the asset must have that type. */
  expectedType: string | undefined;
  now: number;
}

/** One write of an asset, as the pipeline carries it (JSON-safe: it may cross to a writer thread). */
export type AssetWrite =
  | { kind: 'create'; input: CreateInput }
  | { kind: 'update'; input: AssetChange }
  | { kind: 'delete'; input: AssetDeletion };

/** What each kind of write answers: a create's or an update's outcome; whether the asset was found, for a delete. */
export interface AssetWriteResults {
  create: CreateOutcome;
  update: UpdateOutcome;
  delete: boolean;
}

export type AssetWriteResult<W extends AssetWrite> = AssetWriteResults[W['kind']];
