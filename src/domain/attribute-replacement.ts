import type { NgsiAttribute } from './asset-body.js';
import { badRequest } from './errors.js';
import { formatInstant, TIME_INSTANT, TIME_INSTANT_TYPE } from './time-instant.js';

/**
 * The writes of one attribute (PUT …/attrs/{attr} and …/value) as the
 * attributes of an update, so that the update's checks judge them. Their
 * bodies have no room for the asset's TimeInstant: the write is observed at
 * the attribute's own `TimeInstant` metadata when it has one (same format
 * rule), else at its receipt, and the asset's TimeInstant moves to it.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const observedAt = (value: unknown) => ({ type: TIME_INSTANT_TYPE, value });

/** PUT …/attrs/{attr}: `{value, type?, metadata?}`; a type left out keeps the stored one. */
export function attributeReplacement(name: string, body: unknown, stored: NgsiAttribute | undefined, receivedAt: number): Record<string, unknown> {
  if (!isObject(body)) throw badRequest('HTTP body must be a JSON object with the attribute\'s value (and type, metadata)');
  if (name === TIME_INSTANT) return { [TIME_INSTANT]: body };
  const metadata = body.metadata;
  const stamped = isObject(metadata) && isObject(metadata[TIME_INSTANT]) ? (metadata[TIME_INSTANT] as Record<string, unknown>).value : undefined;
  const attribute: Record<string, unknown> = { ...body, type: body.type ?? stored?.type, metadata: metadata ?? {} };
  return { [name]: attribute, [TIME_INSTANT]: observedAt(stamped ?? formatInstant(receivedAt)) };
}

/** PUT …/attrs/{attr}/value: the value alone; the attribute keeps its type and metadata. */
export function valueReplacement(name: string, value: unknown, stored: NgsiAttribute | undefined, receivedAt: number): Record<string, unknown> {
  if (name === TIME_INSTANT) return { [TIME_INSTANT]: observedAt(value) };
  const attribute = { type: stored?.type, value, metadata: stored?.metadata ?? {} };
  return { [name]: attribute, [TIME_INSTANT]: observedAt(formatInstant(receivedAt)) };
}
