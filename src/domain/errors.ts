/**
 * The one catalogue of errors the platform returns. Handlers throw `AppError`s;
 * the HTTP error handler renders them (src/http/error-handler.ts) in the body
 * style of the interface that raised them.
 */
export const ERRORS = {
  // generic
  BAD_REQUEST: { status: 400, kind: 'BadRequest', message: 'The request is not valid' },
  INVALID_JSON: { status: 400, kind: 'BadRequest', message: 'Body is not valid JSON' },
  UNAUTHORIZED: { status: 401, kind: 'Unauthorized', message: 'No valid bearer token was supplied' },
  FORBIDDEN: { status: 403, kind: 'Forbidden', message: 'Insufficient permission' },
  NOT_FOUND: { status: 404, kind: 'NotFound', message: 'The requested resource has not been found' },
  ROUTE_NOT_FOUND: { status: 404, kind: 'NotFound', message: 'No such route' },
  METHOD_NOT_ALLOWED: { status: 405, kind: 'MethodNotAllowed', message: 'Method not allowed' },
  CONFLICT: { status: 409, kind: 'Conflict', message: 'The resource already exists' },
  PAYLOAD_TOO_LARGE: { status: 413, kind: 'PayloadTooLarge', message: 'The request body exceeds 1 MiB' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, kind: 'UnsupportedMediaType', message: 'Content-Type is not supported' },
  UNPROCESSABLE: { status: 422, kind: 'Unprocessable', message: 'The request cannot be processed' },
  TOO_MANY_REQUESTS: { status: 429, kind: 'TooManyRequests', message: 'Too many requests, retry later' },
  INTERNAL: { status: 500, kind: 'InternalServerError', message: 'Internal server error' },
  STORE_UNAVAILABLE: { status: 503, kind: 'ServiceUnavailable', message: 'The store is unreachable, retry later' },
  TIMEOUT: { status: 408, kind: 'RequestTimeout', message: 'The request took too long to arrive' },
  HEADERS_TOO_LARGE: { status: 431, kind: 'RequestHeaderFieldsTooLarge', message: 'The request headers exceed 16 KiB' },

  // identity provider (RFC 6749 §5.2 error codes)
  INVALID_CLIENT: { status: 401, kind: 'invalid_client', message: 'Invalid client credentials' },
  INVALID_GRANT: { status: 400, kind: 'invalid_grant', message: 'Invalid grant' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, kind: 'unsupported_grant_type', message: 'Unsupported grant type' },
  INVALID_REQUEST: { status: 400, kind: 'invalid_request', message: 'Invalid request' },
  UNAUTHORIZED_CLIENT: { status: 400, kind: 'unauthorized_client', message: 'The client may not use this grant type' },
  INVALID_TOKEN: { status: 401, kind: 'invalid_token', message: 'The access token is not valid' },

  // federation (spec part A; texts follow the original platform)
  ASSET_NOT_FOUND: { status: 404, kind: 'NotFound', message: 'The requested entity has not been found. Check type and id' },
  ASSET_EXISTS: { status: 422, kind: 'Unprocessable', message: 'Already Exists' },
  SITE_QUOTA_REACHED: { status: 400, kind: 'BadRequest', message: 'The site reached its quota' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class AppError extends Error {
  readonly status: number;
  readonly kind: string;

  constructor(
    readonly code: ErrorCode,
    /** Overrides the catalogue message with a more precise description. */
    description?: string,
    /** Extra headers the response must carry (e.g. Retry-After, WWW-Authenticate). */
    readonly headers?: Record<string, string>,
  ) {
    const entry = ERRORS[code];
    super(description ?? entry.message);
    this.name = 'AppError';
    this.status = entry.status;
    this.kind = entry.kind;
  }
}

export const badRequest = (description: string): AppError => new AppError('BAD_REQUEST', description);
export const notFound = (description?: string): AppError => new AppError('NOT_FOUND', description);
export const forbidden = (description?: string): AppError => new AppError('FORBIDDEN', description);
export const unauthorized = (description?: string): AppError =>
  new AppError('UNAUTHORIZED', description, { 'www-authenticate': 'Bearer realm="opencity"' });
export const unprocessable = (description?: string): AppError => new AppError('UNPROCESSABLE', description);
