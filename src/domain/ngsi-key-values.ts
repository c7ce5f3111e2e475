import { TIME_INSTANT, TIME_INSTANT_TYPE } from './time-instant.js';

/**
 * `options=keyValues` on a write: attributes sent as bare values. Each becomes
 * a normalized attribute with the type Orion gives a bare value, except
 * TimeInstant, which takes the platform's TimeInstant type, so that the same
 * checks then judge it (its value must still be YYYY-MM-DDTHH:mm:ss.SSSZ).
 */

const ENTITY_FIELDS = new Set(['id', 'type']);

/** Orion's type of a value sent without one. */
export function defaultAttributeType(value: unknown): string {
  if (value === null) return 'None';
  if (typeof value === 'string') return 'Text';
  if (typeof value === 'number') return 'Number';
  if (typeof value === 'boolean') return 'Boolean';
  return 'StructuredValue';
}

/** The body in normalized form; anything but an object is returned as it is, for the checks to refuse. */
export function normalizeKeyValues(body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const normalized: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(body)) {
    if (ENTITY_FIELDS.has(name)) normalized[name] = value;
    else if (name === TIME_INSTANT) normalized[name] = { type: TIME_INSTANT_TYPE, value };
    else normalized[name] = { type: defaultAttributeType(value), value, metadata: {} };
  }
  return normalized;
}
