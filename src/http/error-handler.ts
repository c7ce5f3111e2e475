import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, storeUnavailable, type ErrorCode, type StoreErrorKind } from '../domain/errors.js';

/**
 * How an interface spells its error bodies:
 * - `ngsi` (default): `{"error": kind, "description": message}` (federation, discovery, datasource)
 * - `message`: `{"error": message}` (permissions)
 * - `oauth`: `{"error": kind, "error_description": message}` (token endpoint, RFC 6749)
 */
export type ErrorStyle = 'ngsi' | 'message' | 'oauth';

/**
 * A route whose errors are read by a person renders them as a page of its own
 * (the identity provider's sign-in pages): given the status and the message,
 * it returns the page and the headers it needs.
 */
export type ErrorPage = (status: number, message: string) => { headers: Record<string, string>; html: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    errorStyle?: ErrorStyle;
    errorPage?: ErrorPage;
  }
}

/** How each error of the catalogue is answered over HTTP. */
const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  STORE_UNAVAILABLE: 503,
  EVENT_STREAM_FULL: 503,
  TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  INVALID_CLIENT: 401,
  INVALID_GRANT: 400,
  UNSUPPORTED_GRANT_TYPE: 400,
  INVALID_REQUEST: 400,
  UNAUTHORIZED_CLIENT: 400,
  INVALID_TOKEN: 401,
  ASSET_NOT_FOUND: 404,
  ASSET_EXISTS: 422,
  SITE_QUOTA_REACHED: 400,
  ATTRIBUTE_NOT_FOUND: 404,
  PARTIAL_UPDATE: 422,
};

export const statusOfCode = (code: ErrorCode): number => HTTP_STATUS[code];

export const httpStatus = (error: AppError): number => HTTP_STATUS[error.code];

/** The headers an error's facts call for: a challenge (RFC 7235, RFC 6750 §3) and Retry-After. */
export function httpHeaders(error: AppError): Record<string, string> | undefined {
  const { credentials, tokenRefused, retryAfterSeconds } = error.facts;
  const headers: Record<string, string> = {};
  if (credentials === 'basic') headers['www-authenticate'] = 'Basic realm="opencity"';
  if (credentials === 'bearer') {
    headers['www-authenticate'] = tokenRefused
      ? `Bearer realm="opencity", error="invalid_token", error_description="${error.message.replace(/["\\]/g, '')}"`
      : 'Bearer realm="opencity"';
  }
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  return Object.keys(headers).length > 0 ? headers : undefined;
}

const FRAMEWORK_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_ASYNC_CONSTRAINT: 'BAD_REQUEST',
  FST_ERR_VALIDATION: 'BAD_REQUEST',
  ERR_HTTP_REQUEST_TIMEOUT: 'TIMEOUT',
};

/** What the store makes of an error it raised (src/storage/ports.ts); undefined: nothing it knows of. */
export type StoreErrorClassifier = (error: unknown) => StoreErrorKind | undefined;

/** Maps anything thrown to an AppError; unknown errors become 500 (logged, never shown). */
export function toAppError(error: unknown, classifyStoreError: StoreErrorClassifier): AppError {
  if (error instanceof AppError) return error;
  const e = error as FastifyError;
  if (e?.validation) return new AppError('BAD_REQUEST', describeValidation(e));
  if (e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return new AppError('BAD_REQUEST', 'No body provided');
  if (e instanceof SyntaxError || (e?.statusCode === 400 && /JSON/i.test(e.message ?? ''))) return new AppError('INVALID_JSON');
  const mapped = e?.code ? FRAMEWORK_CODES[e.code] : undefined;
  if (mapped) return new AppError(mapped, mapped === 'BAD_REQUEST' ? e.message : undefined);
  if (e?.statusCode === 429) return new AppError('TOO_MANY_REQUESTS');
  const storeError = classifyStoreError(error);
  if (storeError === 'unavailable') return storeUnavailable();
  if (storeError === 'bad-character') return new AppError('BAD_REQUEST', 'The request holds a character the store cannot take (U+0000)');
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new AppError(e.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : e.statusCode === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST', e.message);
  }
  return new AppError('INTERNAL');
}

function describeValidation(e: FastifyError): string {
  const first = e.validation?.[0];
  const where = e.validationContext ?? 'request';
  if (!first) return e.message;
  const path = (first.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const name = missing ?? path;
  if (where === 'querystring' || where === 'params' || where === 'headers') {
    return `Invalid ${where === 'params' ? 'path parameter' : where === 'headers' ? 'header' : 'query parameter'} '${name}': ${first.message ?? 'invalid'}`;
  }
  return name ? `Invalid ${where} '${name}': ${first.message ?? 'invalid'}` : `Invalid ${where}: ${first.message ?? 'invalid'}`;
}

export function renderError(error: AppError, style: ErrorStyle): Record<string, string> {
  switch (style) {
    case 'message': return { error: error.message };
    case 'oauth': return { error: error.kind, error_description: error.message };
    default: return { error: error.kind, description: error.message };
  }
}

export function sendError(
  reply: FastifyReply, request: FastifyRequest, error: AppError, style: ErrorStyle = request.routeOptions?.config?.errorStyle ?? 'ngsi',
): FastifyReply {
  const headers = httpHeaders(error);
  if (headers) reply.headers(headers);
  const page = request.routeOptions?.config?.errorPage;
  if (page) {
    const rendered = page(httpStatus(error), error.message);
    return reply.code(httpStatus(error)).headers(rendered.headers).send(rendered.html);
  }
  // NGSI clients compare the media type literally: no charset parameter (a Buffer keeps Fastify from adding one).
  return reply.code(httpStatus(error)).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(renderError(error, style))));
}

/** Told of each request refused because of the store (./store-outage-log.ts), which it logs by the outage, not by the request. */
export interface StoreRefusals {
  refusedFor(error: unknown): void;
}

export function registerErrorHandling(app: FastifyInstance, classifyStoreError: StoreErrorClassifier, outage?: StoreRefusals): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error, classifyStoreError);
    if (appError.code === 'STORE_UNAVAILABLE' && outage) outage.refusedFor(error);
    else if (httpStatus(appError) >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, request, appError);
  });
  app.setNotFoundHandler((request, reply) => sendError(reply, request, new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`)));
}
