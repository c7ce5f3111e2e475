import { AppError } from '../domain/errors.js';
import { clientPrincipal } from '../domain/sign-in-addresses.js';
import { findClientWithAccount, type ClientWithAccount } from '../storage/repositories/credentials.js';
import type { Store } from '../storage/store.js';
import type { AttemptSource } from './failed-attempts.js';
import { secretMatches } from './secrets.js';

/** What a request says about the client making it (RFC 6749 §2.3.1). */
export interface PresentedClient {
  id: string;
  /** Absent for a public client, which only names itself. */
  secret: string | undefined;
  /** How it authenticated: RFC 6749 §5.2 wants a Basic challenge back only when it used HTTP Basic. */
  viaBasic: boolean;
}

const INVALID_CLIENT = 'Invalid client or Invalid client credentials';

export const invalidClient = (viaBasic: boolean, description = INVALID_CLIENT): AppError =>
  new AppError('INVALID_CLIENT', description, viaBasic ? { credentials: 'basic' } : {});

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they go into HTTP Basic. */
function formDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Reads the client from HTTP Basic or from the form (`client_id`,
 * `client_secret`). Both at once must name the same client; a malformed
 * Basic header is an authentication failure, not a crash.
 */
export function presentedClient(authorization: string | undefined, form: Record<string, unknown>): PresentedClient | undefined {
  const formId = typeof form.client_id === 'string' && form.client_id !== '' ? form.client_id : undefined;
  const formSecret = typeof form.client_secret === 'string' ? form.client_secret : undefined;
  if (authorization !== undefined && /^basic /i.test(authorization)) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = colon < 0 ? undefined : formDecode(decoded.slice(0, colon));
    const secret = colon < 0 ? undefined : formDecode(decoded.slice(colon + 1));
    if (!id || secret === undefined) throw invalidClient(true, 'Malformed HTTP Basic client credentials');
    if (formId !== undefined && formId !== id) throw new AppError('INVALID_REQUEST', 'client_id in the form differs from the HTTP Basic client');
    if (formSecret !== undefined) throw new AppError('INVALID_REQUEST', 'Use one client authentication method, not HTTP Basic and client_secret together');
    return { id, secret, viaBasic: true };
  }
  if (formId === undefined) return undefined;
  return { id: formId, secret: formSecret, viaBasic: false };
}

export interface AuthenticatedClient extends ClientWithAccount {
  /** A public client (a browser app) has no secret and only named itself. */
  isPublic: boolean;
}

/**
 * A confidential client must prove its secret; a public client only names
 * itself. Every failure gives the same answer, and an unknown client costs the
 * same digest comparison as a known one, so failures tell nothing about which
 * clients exist. With a `source`, repeated failures make the client wait
 * (./failed-attempts.ts), whether or not it exists.
 */
export async function authenticateTokenClient(store: Store, presented: PresentedClient | undefined, source?: AttemptSource): Promise<AuthenticatedClient> {
  if (!presented) throw invalidClient(false, 'Client authentication is required');
  const client = await findClientWithAccount(store, presented.id);
  if (presented.secret === undefined || presented.secret === '') {
    if (client && client.secretDigest === null) return { ...client, isPublic: true };
    throw invalidClient(presented.viaBasic);
  }
  // The id as looked up (decoded): every spelling of one client shares its back-off.
  const principal = clientPrincipal(presented.id);
  await source?.attempts.check(principal, source.address);
  const ok = secretMatches(presented.secret, client?.secretDigest ?? null);
  if (!client || !ok) {
    source?.attempts.failed(principal, source.address);
    throw invalidClient(presented.viaBasic);
  }
  await source?.attempts.succeeded(principal, source.address);
  return { ...client, isPublic: false };
}
