/**
 * The one catalogue of errors the platform returns: a code, the kind the
 * answer names and a default message. Handlers throw `AppError`s; how a code
 * is answered over HTTP (status, headers, body style) is decided in one place,
 * src/http/error-handler.ts, so that the rules here stay free of the protocol.
 */
export const ERRORS = {
  // generic
  BAD_REQUEST: { kind: 'BadRequest', message: 'The request is not valid' },
  INVALID_JSON: { kind: 'BadRequest', message: 'Body is not valid JSON' },
  UNAUTHORIZED: { kind: 'Unauthorized', message: 'No valid bearer token was supplied' },
  FORBIDDEN: { kind: 'Forbidden', message: 'Insufficient permission' },
  NOT_FOUND: { kind: 'NotFound', message: 'The requested resource has not been found' },
  ROUTE_NOT_FOUND: { kind: 'NotFound', message: 'No such route' },
  METHOD_NOT_ALLOWED: { kind: 'MethodNotAllowed', message: 'Method not allowed' },
  NOT_ACCEPTABLE: { kind: 'NotAcceptable', message: 'Not Acceptable: accepted MIME types: application/json, text/plain' },
  CONFLICT: { kind: 'Conflict', message: 'The resource already exists' },
  PAYLOAD_TOO_LARGE: { kind: 'PayloadTooLarge', message: 'The request body exceeds 1 MiB' },
  UNSUPPORTED_MEDIA_TYPE: { kind: 'UnsupportedMediaType', message: 'Content-Type is not supported' },
  UNPROCESSABLE: { kind: 'Unprocessable', message: 'The request cannot be processed' },
  TOO_MANY_REQUESTS: { kind: 'TooManyRequests', message: 'Too many requests, retry later' },
  INTERNAL: { kind: 'InternalServerError', message: 'Internal server error' },
  STORE_UNAVAILABLE: { kind: 'ServiceUnavailable', message: 'The store is unreachable, retry later' },
  TIMEOUT: { kind: 'RequestTimeout', message: 'The request took too long to arrive' },
  EVENT_STREAM_FULL: { kind: 'ServiceUnavailable', message: 'The live event stream has as many clients as it takes (EVENTS_MAX_CLIENTS); retry later' },
  HEADERS_TOO_LARGE: { kind: 'RequestHeaderFieldsTooLarge', message: 'The request headers exceed 16 KiB' },

  // identity provider (RFC 6749 §5.2 error codes)
  INVALID_CLIENT: { kind: 'invalid_client', message: 'Invalid client credentials' },
  INVALID_GRANT: { kind: 'invalid_grant', message: 'Invalid grant' },
  UNSUPPORTED_GRANT_TYPE: { kind: 'unsupported_grant_type', message: 'Unsupported grant type' },
  INVALID_REQUEST: { kind: 'invalid_request', message: 'Invalid request' },
  UNAUTHORIZED_CLIENT: { kind: 'unauthorized_client', message: 'The client may not use this grant type' },
  INVALID_TOKEN: { kind: 'invalid_token', message: 'The access token is not valid' },

  // federation (spec part A; texts follow the original platform)
  ASSET_NOT_FOUND: { kind: 'NotFound', message: 'The requested entity has not been found. Check type and id' },
  ASSET_EXISTS: { kind: 'Unprocessable', message: 'Already Exists' },
  SITE_QUOTA_REACHED: { kind: 'BadRequest', message: 'The site reached its quota' },
  ATTRIBUTE_NOT_FOUND: { kind: 'NotFound', message: 'The entity does not have such an attribute' },
  /** A batch of which some entities were written and some not (Orion's answer). */
  PARTIAL_UPDATE: { kind: 'PartialUpdate', message: 'Some entities of the request were not written' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Facts about a failure, besides its message, that the caller needs in order to
 * try again; the HTTP layer turns them into headers.
 */
export interface ErrorFacts {
  /** Seconds after which trying again may succeed. */
  retryAfterSeconds?: number;
  /** The credentials the caller must present, when presenting them is what failed. */
  credentials?: 'bearer' | 'basic';
  /** A presented token was refused (rather than none being given). */
  tokenRefused?: boolean;
}

export class AppError extends Error {
  readonly kind: string;

  constructor(
    readonly code: ErrorCode,
    /** Overrides the catalogue message with a more precise description. */
    description?: string,
    readonly facts: ErrorFacts = {},
  ) {
    const entry = ERRORS[code];
    super(description ?? entry.message);
    this.name = 'AppError';
    this.kind = entry.kind;
  }
}

export const badRequest = (description: string): AppError => new AppError('BAD_REQUEST', description);
export const notFound = (description?: string): AppError => new AppError('NOT_FOUND', description);
export const forbidden = (description?: string): AppError => new AppError('FORBIDDEN', description);
export const unauthorized = (description?: string): AppError => new AppError('UNAUTHORIZED', description, { credentials: 'bearer' });
export const unprocessable = (description?: string): AppError => new AppError('UNPROCESSABLE', description);

/** What an error raised by the store means to the caller. */
export type StoreErrorKind =
  /** The store is unreachable or failing: not the request's fault. */
  | 'unavailable'
  /** A value of the request holds a character the store cannot take. */
  | 'bad-character';

/** Seconds a client is told to wait before retrying when the store is unreachable or hung. */
export const STORE_RETRY_AFTER_S = 1;

/** The store cannot serve the request now (unreachable, or no answer within STORE_TIMEOUT): 503 with Retry-After. */
export const storeUnavailable = (description?: string): AppError =>
  new AppError('STORE_UNAVAILABLE', description, { retryAfterSeconds: STORE_RETRY_AFTER_S });
