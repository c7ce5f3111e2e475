import { checkAttributeCount, checkAttributeNesting, DEFAULT_MAX_ATTRIBUTES } from './attribute-bounds.js';
import { badRequest } from './errors.js';
import { describeIdentifierProblem, identifierProblem } from './ngsi-identifier.js';
import { readTimeInstant, TIME_INSTANT } from './time-instant.js';
import { assertOwnAssetId, ENTITY_TYPE_PREFIX, parseAssetUrn, type AssetUrn } from './urn.js';

/** An attribute in NGSI v2 normalized form, as stored and returned. */
export interface NgsiAttribute {
  type: string;
  value: unknown;
  metadata: Record<string, unknown>;
}

/**
 * Attributes by name. Always built on a null prototype: names come from the
 * request, and one called `__proto__` must stay an ordinary attribute.
 */
export type NgsiAttributes = Record<string, NgsiAttribute>;

export interface AssetCreation {
  id: string;
  type: string;
  urn: AssetUrn;
  /** Every attribute of the body, TimeInstant included. */
  attributes: NgsiAttributes;
  /** TimeInstant, epoch ms. */
  recordedAt: number;
}

export interface AssetUpdate {
  attributes: NgsiAttributes;
  recordedAt: number;
}

export const emptyAttributes = (): NgsiAttributes => Object.create(null) as NgsiAttributes;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkIdentifier(what: string, value: string): void {
  const problem = identifierProblem(value);
  if (problem) throw badRequest(describeIdentifierProblem(what, problem));
}

function readBodyObject(body: unknown): Record<string, unknown> {
  if (!isObject(body)) throw badRequest('HTTP body must be a JSON object');
  return body;
}

/** One attribute: an object with a string `type`, a `value` (any JSON) and, optionally, an object `metadata`. */
function readAttribute(name: string, raw: unknown): NgsiAttribute {
  const problem = identifierProblem(name);
  if (problem) throw badRequest(describeIdentifierProblem(`Asset attribute name ${JSON.stringify(name.slice(0, 64))}`, problem));
  if (!isObject(raw)) throw badRequest(`Asset attribute ${name} must be an object with type and value`);
  if (typeof raw.type !== 'string' || raw.type === '') throw badRequest(`Asset attribute ${name}.type must be a non-empty string`);
  if (raw.type.length > 256) throw badRequest(`Asset attribute ${name}.type is longer than 256 characters`);
  if (!Object.hasOwn(raw, 'value')) throw badRequest(`Asset attribute ${name}.value not provided!`);
  if (raw.metadata !== undefined && !isObject(raw.metadata)) throw badRequest(`Asset attribute ${name}.metadata must be an object`);
  checkAttributeNesting(name, raw.value, raw.metadata);
  return { type: raw.type, value: raw.value, metadata: (raw.metadata as Record<string, unknown> | undefined) ?? {} };
}

/** What a write may carry, from the configuration (MAX_ATTRIBUTES). */
export interface AssetBodyLimits {
  maxAttributes: number;
}

const DEFAULT_LIMITS: AssetBodyLimits = { maxAttributes: DEFAULT_MAX_ATTRIBUTES };

/** TimeInstant first (its own messages), then every other attribute in body order. */
function readAttributes(body: Record<string, unknown>, skip: ReadonlySet<string>, limits: AssetBodyLimits): { attributes: NgsiAttributes; recordedAt: number } {
  const names = Object.keys(body);
  checkAttributeCount(names.filter((name) => !skip.has(name)).length, limits.maxAttributes);
  const recordedAt = readTimeInstant(body[TIME_INSTANT]);
  const attributes = emptyAttributes();
  for (const name of names) {
    if (!skip.has(name)) attributes[name] = readAttribute(name, body[name]);
  }
  return { attributes, recordedAt };
}

const ENTITY_FIELDS = new Set(['id', 'type']);

/**
 * The body of POST /v2/entities, checked in the original platform's order:
 * object, id, id prefix, type, TimeInstant, then the other attributes.
 */
export function readAssetCreation(body: unknown, site: string, limits = DEFAULT_LIMITS): AssetCreation {
  const object = readBodyObject(body);
  const { id, type } = object;
  if (id === undefined || id === null || id === '') throw badRequest('No Asset ID provided!');
  if (typeof id !== 'string') throw badRequest('Asset.id must be a string');
  assertOwnAssetId(id, site);
  checkIdentifier('Asset.id', id);
  const urn = parseAssetUrn(id, site);
  if (type === undefined || type === null || type === '') throw badRequest('Asset.type not provided!');
  if (typeof type !== 'string') throw badRequest('Asset.type must be a string');
  if (!type.startsWith(ENTITY_TYPE_PREFIX)) throw badRequest(`Asset.type prefix must be ${ENTITY_TYPE_PREFIX}`);
  if (type.length === ENTITY_TYPE_PREFIX.length) throw badRequest(`Asset.type empty after the prefix ${ENTITY_TYPE_PREFIX}`);
  checkIdentifier('Asset.type', type);
  return { id, type, urn, ...readAttributes(object, ENTITY_FIELDS, limits) };
}

/** The body of POST /v2/entities/{id}/attrs: no id, no type, a TimeInstant, attributes. */
export function readAssetUpdate(body: unknown, limits = DEFAULT_LIMITS): AssetUpdate {
  const object = readBodyObject(body);
  if (Object.hasOwn(object, 'id')) throw badRequest('Asset attribute id in payload not allowed!');
  if (Object.hasOwn(object, 'type')) throw badRequest('Asset attribute type in payload not allowed!');
  return readAttributes(object, ENTITY_FIELDS, limits);
}

/** Append semantics of POST …/attrs: attributes in the update replace or join the stored ones. */
export function mergeAttributes(stored: Readonly<Record<string, NgsiAttribute>>, changes: NgsiAttributes): NgsiAttributes {
  return Object.assign(emptyAttributes(), stored, changes);
}

/** A reading's value: strings as they are, anything else as its JSON text. */
export function readingValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? 'null';
}
