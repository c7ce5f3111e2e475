import { mergeAttributes, type NgsiAttribute, type NgsiAttributes } from './asset-body.js';
import { TIME_INSTANT } from './time-instant.js';

/**
 * How a write meets the attributes an asset holds, as Orion's entity
 * operations define it:
 * - `append` (POST …/attrs): attributes replaced or added;
 * - `update` (PATCH …/attrs, PUT …/attrs/{attr}): existing attributes only;
 * - `appendStrict` (POST …/attrs?options=append): new attributes only;
 * - `replace` (PUT …/attrs): the attributes of the write, and no others.
 * TimeInstant is the observation time every write carries, not an attribute a
 * site adds or updates: it counts as neither missing nor existing. A write is
 * whole or nothing: one attribute refused writes nothing of it.
 */
export type AttributeWriteMode = 'append' | 'update' | 'appendStrict' | 'replace';

export const ATTRIBUTE_WRITE_MODES: readonly AttributeWriteMode[] = ['append', 'update', 'appendStrict', 'replace'];

/** Why a write of attributes was refused: the attributes it needed and the asset lacks, or those it may not overwrite. */
export interface AttributeRefusal {
  refused: 'missing' | 'existing';
  attributes: string[];
}

export interface AttributeWrite {
  changes: NgsiAttributes;
  mode?: AttributeWriteMode | undefined;
  removes?: readonly string[] | undefined;
}

export const isAttributeRefusal = (value: unknown): value is AttributeRefusal =>
  typeof value === 'object' && value !== null && 'refused' in value;

const has = (attrs: Readonly<Record<string, NgsiAttribute>>, name: string): boolean => Object.hasOwn(attrs, name);

/** The attributes the asset holds after the write, or why it is refused. */
export function applyAttributeWrite(stored: Readonly<Record<string, NgsiAttribute>>, write: AttributeWrite): NgsiAttributes | AttributeRefusal {
  const mode = write.mode ?? 'append';
  const named = Object.keys(write.changes).filter((name) => name !== TIME_INSTANT);
  if (mode === 'appendStrict') {
    const existing = named.filter((name) => has(stored, name));
    if (existing.length > 0) return { refused: 'existing', attributes: existing };
  }
  const missing = [
    ...(mode === 'update' ? named.filter((name) => !has(stored, name)) : []),
    ...(write.removes ?? []).filter((name) => !has(stored, name)),
  ];
  if (missing.length > 0) return { refused: 'missing', attributes: [...new Set(missing)] };
  const attrs = mode === 'replace' ? mergeAttributes({}, write.changes) : mergeAttributes(stored, write.changes);
  for (const name of write.removes ?? []) delete attrs[name];
  return attrs;
}

/** Does the write set values (and so observe the asset), or only remove attributes? */
export const setsValues = (write: AttributeWrite): boolean => Object.keys(write.changes).length > 0;

