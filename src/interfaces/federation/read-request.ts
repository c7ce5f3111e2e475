import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../domain/errors.js';

/** What the federation's reads share: their query parameters as single texts, and their JSON answers. */

/** The query parameters `names`, each a single text (a parameter given twice is a 400 naming it). */
export function queryTexts<K extends string>(request: FastifyRequest, names: readonly K[]): Partial<Record<K, string>> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = query[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw badRequest(`Invalid ${name}: given more than once`);
    out[name] = value;
  }
  return out;
}

/**
 * Sends JSON text as it is. A Buffer keeps the media type exactly
 * application/json (NGSI clients compare it literally) and skips the
 * serializer: the text is made by the read already.
 */
export function sendJson(reply: FastifyReply, json: string, total?: number): FastifyReply {
  if (total !== undefined) reply.header('fiware-total-count', String(total));
  return reply.code(200).header('content-type', 'application/json').send(Buffer.from(json));
}
