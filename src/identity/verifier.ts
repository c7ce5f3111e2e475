import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../domain/clock.js';
import { unauthorized, type AppError } from '../domain/errors.js';
import type { Caller } from '../domain/caller.js';
import { callerFromClaims } from './caller.js';
import type { KeyRing } from './key-ring.js';

export interface TokenVerifier {
  /** The caller a bearer token stands for; throws a 401 AppError for anything else. */
  verify(token: string): Promise<Caller>;
}

/**
 * Only asymmetric algorithms: `none` is never accepted, and neither is HS256,
 * which would let anyone holding the (public) verification key forge tokens.
 */
export const ACCEPTED_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'EdDSA'];

export interface VerifierOptions {
  issuer: string;
  /** When set, the token's `aud` must contain it. */
  audience?: string | undefined;
  clock: Clock;
  /** Verified tokens kept; the oldest go first. */
  cacheSize?: number;
}

/**
 * Verifies signature, expiry and issuer (and audience when set), then caches
 * the caller until the token expires, so a hot token costs one map lookup.
 */
export class CachingVerifier implements TokenVerifier {
  private readonly cache = new Map<string, Caller>();
  private readonly cacheSize: number;

  constructor(private readonly getKey: JWTVerifyGetKey, private readonly options: VerifierOptions) {
    this.cacheSize = options.cacheSize ?? 20_000;
  }

  async verify(token: string): Promise<Caller> {
    const now = this.options.clock.now();
    const cached = this.cache.get(token);
    if (cached) {
      if (cached.expiresAt > now) return cached;
      this.cache.delete(token);
      throw unauthorized('The access token expired');
    }
    const caller = await this.verifyUncached(token, now);
    if (this.cache.size >= this.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(token, caller);
    return caller;
  }

  private async verifyUncached(token: string, now: number): Promise<Caller> {
    // A cheap structural check before any cryptography (and before a key lookup that may read the store).
    if (!looksLikeJwt(token)) throw unauthorized('Invalid token (malformed)');
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.getKey, {
        issuer: this.options.issuer,
        ...(this.options.audience ? { audience: this.options.audience } : {}),
        algorithms: ACCEPTED_ALGORITHMS,
        currentDate: new Date(now),
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw describeJoseError(error);
    }
    // Keycloak marks its tokens: an ID token ("ID") or a refresh token ("Refresh")
    // signed by the same realm must not pass for an access token.
    if (payload.typ !== undefined && payload.typ !== 'Bearer') throw unauthorized(`Invalid token (a ${String(payload.typ)} token is not an access token)`);
    return callerFromClaims(payload);
  }
}

function describeJoseError(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) return unauthorized('The access token expired');
  if (error instanceof errors.JWTClaimValidationFailed) return unauthorized(`Invalid token (${error.claim} claim check failed)`);
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthorized('Invalid token (invalid signature)');
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthorized('Invalid token (algorithm not allowed)');
  if (error instanceof errors.JOSENotSupported) return unauthorized('Invalid token (algorithm not allowed)');
  if (error instanceof errors.JWKSNoMatchingKey) return unauthorized('Invalid token (unknown signing key)');
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return unauthorized('Invalid token (the issuer\'s keys could not be fetched)');
  if (error instanceof errors.JOSEError) return unauthorized('Invalid token (malformed)');
  return unauthorized('Invalid token');
}

/**
 * Resolves the embedded issuer's keys by `kid` from the store-backed key ring;
 * the token's `alg` must be the key's own (no algorithm substitution).
 */
export function keyResolver(keys: KeyRing): JWTVerifyGetKey {
  return async (header) => {
    const found = header.kid ? await keys.publicKey(header.kid) : undefined;
    if (!found) throw new errors.JWKSNoMatchingKey();
    if (found.alg !== header.alg) throw new errors.JOSEAlgNotAllowed('the token\'s alg is not its key\'s');
    return found.key;
  };
}

/** Trusts the embedded issuer: keys come from the store-backed key ring. */
export function embeddedVerifier(keys: KeyRing, issuer: string, clock: Clock, audience?: string): TokenVerifier {
  return new CachingVerifier(keyResolver(keys), { issuer, clock, audience });
}

/** Trusts an external OIDC issuer (a Keycloak realm) through its JWKS, fetched and cached by jose. */
export function externalVerifier(issuer: string, jwksUrl: string, clock: Clock, audience?: string): TokenVerifier {
  return new CachingVerifier(createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000 }), { issuer, clock, audience });
}

/** Cheap structural check before any cryptography: three base64url parts with a JSON header. */
export function looksLikeJwt(token: string): boolean {
  if (token.length > 16_384 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return false;
  try {
    decodeProtectedHeader(token);
    return true;
  } catch {
    return false;
  }
}
