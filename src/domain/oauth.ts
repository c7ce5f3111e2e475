import { createHash } from 'node:crypto';

/**
 * OAuth 2.0 rules of the identity provider that need neither HTTP nor a store:
 * PKCE (RFC 7636), scopes, redirect-URI matching.
 */

/** RFC 7636 §4.1: 43–128 characters of [A-Z a-z 0-9 - . _ ~]. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url SHA-256 of the verifier: exactly 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isCodeVerifier(value: string): boolean {
  return CODE_VERIFIER.test(value);
}

export function isS256Challenge(value: string): boolean {
  return S256_CHALLENGE.test(value);
}

export function s256Challenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Does the verifier sent to the token endpoint answer the challenge sent to the authorization endpoint? */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return isCodeVerifier(verifier) && isS256Challenge(challenge) && s256Challenge(verifier) === challenge;
}

/** Scopes the provider knows; others are dropped rather than refused (as lenient providers do). */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;

/** The granted scope: the known scopes asked for, in a stable order, `profile email` when none was asked. */
export function grantedScope(requested: string | undefined): string {
  const asked = new Set((requested ?? '').split(' ').filter((s) => s !== ''));
  const granted = SUPPORTED_SCOPES.filter((s) => asked.has(s));
  if (!granted.includes('profile')) granted.push('profile');
  if (!granted.includes('email')) granted.push('email');
  return SUPPORTED_SCOPES.filter((s) => granted.includes(s)).join(' ');
}

export function hasScope(scope: string, wanted: string): boolean {
  return scope.split(' ').includes(wanted);
}

/**
 * Redirect URIs match exactly (RFC 9700 §4.1.3: no wildcards, no prefix
 * matching), so a code can never be sent anywhere the client did not register.
 */
export function redirectUriAllowed(uri: string, registered: readonly string[]): boolean {
  return registered.includes(uri);
}

/** An absolute URI without a fragment (RFC 6749 §3.1.2). */
export function isValidRedirectUri(uri: string): boolean {
  if (uri.includes('#')) return false;
  try {
    const parsed = new URL(uri);
    return parsed.protocol !== 'javascript:' && parsed.protocol !== 'data:';
  } catch {
    return false;
  }
}

/** Appends parameters to a redirect URI, keeping the query it already has. */
export function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.toString();
}
