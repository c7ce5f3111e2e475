/**
 * Rules for clients created and edited through the permissions interface:
 * client ids, redirect URIs (absolute, no fragment), and the platform's own
 * clients, which this interface does not change.
 */
import { unprocessable } from './errors.js';

/** Client ids chosen by the caller: what the CLI accepts too. */
export const CLIENT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Ids of the platform's own clients (`opencity-admin`, `opencity-observatory`). */
export const PLATFORM_CLIENT_PREFIX = 'opencity-';

export const MAX_REDIRECT_URIS = 100;
export const MAX_URI_LENGTH = 2048;
export const MAX_CLIENT_NAME_LENGTH = 200;

export function isPlatformClient(clientId: string): boolean {
  return clientId.startsWith(PLATFORM_CLIENT_PREFIX);
}

/**
 * An absolute URI (RFC 3986 §4.3): a scheme, then no whitespace; web URIs must
 * name a host. Custom schemes (`com.example.app:/callback`) are allowed for
 * native apps.
 */
export function isAbsoluteUri(text: string): boolean {
  if (text.length > MAX_URI_LENGTH || !/^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(text)) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return false;
  if (/^https?:/i.test(text) && !/^https?:\/\/[^/?#\s]+/i.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** A redirect URI must be absolute and carry no fragment (RFC 6749 §3.1.2). */
export function isRedirectUri(text: string): boolean {
  return isAbsoluteUri(text) && !text.includes('#');
}

/** Checks every URI, then drops repeats (first occurrence wins, order kept). */
export function redirectUriSet(uris: readonly string[]): string[] {
  const bad = uris.find((u) => !isRedirectUri(u));
  if (bad !== undefined) {
    throw unprocessable(`Redirect URIs must be absolute URIs without a fragment (at most ${MAX_URI_LENGTH} characters): ${JSON.stringify(bad.slice(0, 200))} is not.`);
  }
  const unique = [...new Set(uris)];
  if (unique.length > MAX_REDIRECT_URIS) throw unprocessable(`A client has at most ${MAX_REDIRECT_URIS} redirect URIs.`);
  return unique;
}

export interface ClientRequest {
  clientId?: string | undefined;
  clientName?: string | undefined;
  clientUri?: string | undefined;
  redirectUri?: string | undefined;
}

export interface NewClientPlan {
  /** Undefined: the platform picks a random UUID (as the original did). */
  clientId: string | undefined;
  name: string | null;
  uri: string | null;
  redirectUris: string[];
}

const blank = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v);

/**
 * What to create for a `POST /clients` body. Empty strings mean "none": the
 * original's callers sent `clientUri: ""` and `redirectUri: ""`.
 */
export function planNewClient(body: ClientRequest): NewClientPlan {
  const clientId = blank(body.clientId);
  if (clientId !== undefined) {
    if (!CLIENT_ID.test(clientId)) throw unprocessable('The client id must be 1 to 128 letters, digits, ".", "_" or "-".');
    if (isPlatformClient(clientId)) throw unprocessable(`Client ids starting with ${PLATFORM_CLIENT_PREFIX} are reserved for the platform.`);
  }
  const name = blank(body.clientName);
  if (name !== undefined && name.length > MAX_CLIENT_NAME_LENGTH) throw unprocessable(`The client name is longer than ${MAX_CLIENT_NAME_LENGTH} characters.`);
  // eslint-disable-next-line no-control-regex
  if (name !== undefined && /[\u0000-\u001f\u007f]/.test(name)) throw unprocessable('The client name contains control characters.');
  const uri = blank(body.clientUri);
  if (uri !== undefined && !isAbsoluteUri(uri)) throw unprocessable('The client URI must be an absolute URI.');
  const redirect = blank(body.redirectUri);
  return { clientId, name: name ?? null, uri: uri ?? null, redirectUris: redirect === undefined ? [] : redirectUriSet([redirect]) };
}
