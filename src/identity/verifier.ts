import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../domain/clock.js';
import { unauthorized, type AppError } from '../domain/errors.js';
import { callerFromClaims, type Caller } from './caller.js';
import type { KeyRing } from './key-ring.js';

export interface TokenVerifier {
  verify(token: string): Promise<Caller>;
}

interface VerifierOptions {
  issuer: string;
  audience?: string;
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
    this.cacheSize = options.cacheSize ?? 50_000;
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
    try {
      const { payload } = await jwtVerify(token, this.getKey, {
        issuer: this.options.issuer,
        ...(this.options.audience ? { audience: this.options.audience } : {}),
        algorithms: ['ES256', 'RS256', 'ES384', 'RS384', 'ES512', 'RS512', 'PS256', 'EdDSA'],
        currentDate: new Date(now),
        requiredClaims: ['exp', 'sub'],
      });
      return callerFromClaims(payload as Record<string, unknown>);
    } catch (error) {
      throw describeJoseError(error);
    }
  }
}

function describeJoseError(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) return unauthorized('The access token expired');
  if (error instanceof errors.JWTClaimValidationFailed) return unauthorized(`Invalid token (${error.claim} claim check failed)`);
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthorized('Invalid token (invalid signature)');
  if (error instanceof errors.JOSEAlgNotAllowed) return unauthorized('Invalid token (algorithm not allowed)');
  if (error instanceof errors.JWKSNoMatchingKey) return unauthorized('Invalid token (unknown signing key)');
  if (error instanceof errors.JOSEError) return unauthorized('Invalid token (malformed)');
  return unauthorized('Invalid token');
}

/** Trusts the embedded issuer: keys come from the store-backed key ring. */
export function embeddedVerifier(keys: KeyRing, issuer: string, clock: Clock): TokenVerifier {
  const getKey: JWTVerifyGetKey = async (header) => {
    const key = header.kid ? await keys.publicKey(header.kid) : undefined;
    if (!key) throw new errors.JWKSNoMatchingKey();
    return key;
  };
  return new CachingVerifier(getKey, { issuer, clock });
}

/** Trusts an external OIDC issuer (a Keycloak realm) through its JWKS. */
export function externalVerifier(issuer: string, jwksUrl: string, clock: Clock): TokenVerifier {
  return new CachingVerifier(createRemoteJWKSet(new URL(jwksUrl)), { issuer, clock });
}

/** Cheap structural check before any cryptography: three base64url parts with a JSON header. */
export function looksLikeJwt(token: string): boolean {
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) return false;
  try {
    decodeProtectedHeader(token);
    return true;
  } catch {
    return false;
  }
}
