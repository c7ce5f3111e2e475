import type { NgsiAttributes } from './asset-body.js';
import { badRequest } from './errors.js';

/**
 * How an entity is written out in NGSI v2: the one rendering of entities that
 * reads (GET /v2/entities, /v2/op/query), notifications and the live stream
 * share, so that `attrs`, `exceptAttrs` and the formats mean the same
 * everywhere.
 *   normalized  { id, type, name: { type, value, metadata } … }
 *   keyValues   { id, type, name: value … }
 *   values      [ value … ] in the order of `attrs` (or of the entity)
 */
export type AttrsFormat = 'normalized' | 'keyValues' | 'values';

export const ATTRS_FORMATS: readonly AttrsFormat[] = ['normalized', 'keyValues', 'values'];

export interface EntityState {
  id: string;
  type: string;
  attributes: Readonly<NgsiAttributes>;
}

export interface AttributeSelection {
  /** Only these, in this order (`*` stands for every attribute). */
  attrs?: readonly string[] | undefined;
  /** Every attribute but these. */
  exceptAttrs?: readonly string[] | undefined;
}

export function isAttrsFormat(text: string): text is AttrsFormat {
  return (ATTRS_FORMATS as readonly string[]).includes(text);
}

/** A comma-separated `attrs` list, as the URI parameters give it; empty names are refused. */
export function parseAttributeList(name: string, text: string): string[] {
  const names = text.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw badRequest(`Invalid ${name}: empty attribute name in ${JSON.stringify(text)}`);
  return names;
}

/** The names of the entity's attributes a selection keeps, in the order it gives. */
export function selectedAttributeNames(attributes: Readonly<NgsiAttributes>, selection: AttributeSelection = {}): string[] {
  const present = Object.keys(attributes);
  let names: string[];
  if (selection.attrs && selection.attrs.length > 0 && !selection.attrs.includes('*')) {
    names = selection.attrs.filter((n) => Object.hasOwn(attributes, n));
  } else {
    names = present;
  }
  if (selection.exceptAttrs && selection.exceptAttrs.length > 0) {
    const except = new Set(selection.exceptAttrs);
    names = names.filter((n) => !except.has(n));
  }
  return names;
}

/** The entity in the given format, with the attributes the selection keeps. */
export function renderEntity(entity: EntityState, format: AttrsFormat, selection: AttributeSelection = {}): Record<string, unknown> | unknown[] {
  const names = selectedAttributeNames(entity.attributes, selection);
  if (format === 'values') return names.map((n) => entity.attributes[n]?.value);
  // A null prototype: an attribute called __proto__ stays an ordinary member.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  out.id = entity.id;
  out.type = entity.type;
  for (const n of names) {
    const attribute = entity.attributes[n];
    out[n] = format === 'keyValues' ? attribute?.value : attribute;
  }
  return out;
}
