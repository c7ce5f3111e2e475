import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { siteOfCaller } from '../../domain/site-client.js';
import { requireCaller } from '../../http/auth.js';
import { utf8Text } from '../../http/utf8-body.js';
import { requireSite } from '../../services/federation.js';
import type { SiteRecord } from '../../storage/repositories/sites.js';

/**
 * The checks every federation request passes before its body is looked at, in
 * the original platform's order: token (401), role (403), client id (400),
 * platform-service header (400), Content-Type (415), body (400).
 */

/** The caller's site: token, role ocsite, client id ocsite-<site> of a registered site. */
export async function siteOfRequest(request: FastifyRequest, ctx: AppContext): Promise<SiteRecord> {
  return requireSite(ctx, siteOfCaller(requireCaller(request)));
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * `platform-service` (or its NGSI synonym `Fiware-Service`) must carry the
 * platform's service name. Required on writes; checked whenever present.
 */
export function checkPlatformService(request: FastifyRequest, expected: string, required: boolean): void {
  const given = [headerValue(request, 'platform-service'), headerValue(request, 'fiware-service')].filter((v) => v !== undefined);
  if (given.length === 0) {
    if (required) throw badRequest('HTTP header platform-service not provided! (Fiware-Service is accepted as its synonym)');
    return;
  }
  const wrong = given.find((v) => v !== expected);
  if (wrong !== undefined) throw badRequest(`HTTP header platform-service ${JSON.stringify(wrong)} not acceptable: this platform's service is ${JSON.stringify(expected)}`);
}

/** The JSON body of a write: application/json only, present, well-formed. */
export function readJsonBody(request: FastifyRequest): unknown {
  const contentType = headerValue(request, 'content-type');
  if (contentType === undefined || contentType.trim() === '') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type header not provided. Please provide application/json');
  }
  const mediaType = (contentType.split(';')[0] as string).trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${contentType} not acceptable. Please provide application/json`);
  }
  const text = Buffer.isBuffer(request.body) ? utf8Text(request.body) : '';
  if (text.trim() === '') throw badRequest('No HTTP body provided!');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('HTTP body is not valid JSON!');
  }
}

/** `?type=` of an entity route, read as sent: the federation schemas document the query but do not validate it (see index.ts). */
export function typeQuery(request: FastifyRequest): string | undefined {
  const type = (request.query as Record<string, unknown> | undefined)?.type;
  if (type === undefined) return undefined;
  if (typeof type !== 'string' || type === '') throw badRequest('Query parameter type must be a non-empty string');
  return type;
}

/** NGSI `?options=`: none is supported on writes; `keyValues` on reads. */
export function checkOptions(request: FastifyRequest, allowed: readonly string[]): Set<string> {
  const raw = (request.query as Record<string, unknown> | undefined)?.options;
  if (raw === undefined) return new Set();
  const options = String(raw).split(',').filter((o) => o !== '');
  const unsupported = options.find((o) => !allowed.includes(o));
  if (unsupported !== undefined) throw badRequest(`Query parameter options=${unsupported} is not supported here`);
  return new Set(options);
}
