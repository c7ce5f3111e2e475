import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../domain/errors.js';
import { hasScope } from '../domain/oauth.js';
import {
  deleteExpiredRefreshTokens, findRefreshToken, insertRefreshToken, revokeSession, rotateRefreshToken, type RefreshTokenRecord,
} from '../storage/repositories/refresh-tokens.js';
import { deleteExpiredAuthorizationCodes } from '../storage/repositories/authorization-codes.js';
import type { TokenIssuer } from './tokens.js';

/**
 * Sign-in sessions and their refresh tokens. A refresh token is a random 256-bit
 * value; the store keeps only its SHA-256 digest. Each use rotates it (the old
 * one stops working), and presenting a rotated token again ends the whole
 * session, since only a stolen copy would be used twice (RFC 9700 §4.14.2).
 */

/** A refresh token stops working after 30 idle minutes (Keycloak's "SSO Session Idle")… */
export const REFRESH_IDLE_S = 30 * 60;
/** …and its session after 10 hours whatever happens ("SSO Session Max"). */
export const SESSION_MAX_S = 10 * 60 * 60;
/** Offline tokens (scope offline_access) survive 30 idle days and have no session cap. */
export const OFFLINE_IDLE_S = 30 * 24 * 60 * 60;

export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

const newToken = (): string => randomBytes(32).toString('base64url');

export interface IssuedRefreshToken {
  refreshToken: string;
  /** Seconds until it expires; 0 for offline tokens, as Keycloak reports them. */
  refreshExpiresIn: number;
}

export interface SessionStart {
  userId: string;
  clientId: string;
  scope: string;
  sessionId: string;
  /** When the person signed in, epoch ms. */
  authTime: number;
}

function lifetimes(scope: string, now: number, sessionExpiresAt: number | null): { expiresAt: number; sessionExpiresAt: number | null; reported: number } {
  if (hasScope(scope, 'offline_access')) return { expiresAt: now + OFFLINE_IDLE_S * 1000, sessionExpiresAt: null, reported: 0 };
  const cap = sessionExpiresAt ?? now + SESSION_MAX_S * 1000;
  const expiresAt = Math.min(now + REFRESH_IDLE_S * 1000, cap);
  return { expiresAt, sessionExpiresAt: cap, reported: Math.max(0, Math.floor((expiresAt - now) / 1000)) };
}

/** Starts a session with its first refresh token. */
export async function startSession(ctx: TokenIssuer, start: SessionStart): Promise<IssuedRefreshToken> {
  const now = ctx.clock.now();
  const refreshToken = newToken();
  const life = lifetimes(start.scope, now, null);
  await insertRefreshToken(ctx.store, {
    digest: tokenDigest(refreshToken), userId: start.userId, clientId: start.clientId, scope: start.scope, sessionId: start.sessionId,
    expiresAt: life.expiresAt, revokedAt: null, createdAt: now, sessionExpiresAt: life.sessionExpiresAt, authTime: start.authTime,
  });
  housekeeping(ctx, now);
  return { refreshToken, refreshExpiresIn: life.reported };
}

export const newSessionId = (): string => randomUUID();

const invalidGrant = (description: string): AppError => new AppError('INVALID_GRANT', description);

/**
 * Exchanges a refresh token for its successor. Refuses (invalid_grant) a token
 * that is unknown, issued to another client, expired, or already used — and in
 * the last case ends the session.
 */
export async function rotate(ctx: TokenIssuer, refreshToken: string, clientId: string): Promise<{ session: RefreshTokenRecord; next: IssuedRefreshToken }> {
  const now = ctx.clock.now();
  const digest = tokenDigest(refreshToken);
  const record = await findRefreshToken(ctx.store, digest);
  if (!record || record.clientId !== clientId) throw invalidGrant('Invalid refresh token');
  if (record.revokedAt !== null) {
    await revokeSession(ctx.store, record.sessionId, now);
    throw invalidGrant('Refresh token already used or revoked; the session has ended');
  }
  if (record.expiresAt <= now || (record.sessionExpiresAt !== null && record.sessionExpiresAt <= now)) throw invalidGrant('Refresh token expired');
  const refreshTokenNext = newToken();
  const life = lifetimes(record.scope, now, record.sessionExpiresAt);
  const rotated = await rotateRefreshToken(ctx.store, digest, {
    ...record, digest: tokenDigest(refreshTokenNext), expiresAt: life.expiresAt, revokedAt: null, createdAt: now, sessionExpiresAt: life.sessionExpiresAt,
  }, now);
  if (!rotated) throw invalidGrant('Refresh token already used or revoked');
  return { session: record, next: { refreshToken: refreshTokenNext, refreshExpiresIn: life.reported } };
}

/** The session a refresh token belongs to, when the token was issued to `clientId` (logout, revocation). */
export async function sessionOf(ctx: TokenIssuer, refreshToken: string, clientId: string | undefined): Promise<RefreshTokenRecord | undefined> {
  const record = await findRefreshToken(ctx.store, tokenDigest(refreshToken));
  return record && (clientId === undefined || record.clientId === clientId) ? record : undefined;
}

export async function endSession(ctx: TokenIssuer, sessionId: string): Promise<number> {
  return revokeSession(ctx.store, sessionId, ctx.clock.now());
}

/** Rows are kept a day past expiry so that a replayed token is still recognised as one. */
const KEEP_EXPIRED_MS = 24 * 60 * 60 * 1000;
const HOUSEKEEPING_EVERY_MS = 10 * 60 * 1000;
let lastHousekeeping = -Infinity;

/** Now and then, in the background, forgets expired refresh tokens and authorization codes. */
function housekeeping(ctx: TokenIssuer, now: number): void {
  const tick = performance.now();
  if (tick - lastHousekeeping < HOUSEKEEPING_EVERY_MS) return;
  lastHousekeeping = tick;
  void Promise.all([
    deleteExpiredRefreshTokens(ctx.store, now - KEEP_EXPIRED_MS),
    deleteExpiredAuthorizationCodes(ctx.store, now - KEEP_EXPIRED_MS),
  ]).catch(() => undefined);
}
