import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../domain/errors.js';
import { readTextValue } from '../../domain/ngsi-text-value.js';
import { utf8Text } from '../../http/utf8-body.js';
import { readJsonBody } from './request.js';

/** The body of PUT …/attrs/{attr}/value: any JSON value as application/json, or a plain value as text/plain. */
export function readValueBody(request: FastifyRequest): unknown {
  const contentType = String(request.headers['content-type'] ?? '');
  const mediaType = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (mediaType !== 'text/plain') return readJsonBody(request);
  const text = Buffer.isBuffer(request.body) ? utf8Text(request.body) : '';
  if (text.trim() === '') throw badRequest('No HTTP body provided!');
  return readTextValue(text);
}
