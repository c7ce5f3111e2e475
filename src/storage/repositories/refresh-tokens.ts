import type { Store } from '../store.js';

/** A refresh token as stored: only the SHA-256 digest of the token, never the token. */
export interface RefreshTokenRecord {
  digest: string;
  userId: string;
  clientId: string;
  scope: string;
  sessionId: string;
  expiresAt: number;
  revokedAt: number | null;
  createdAt: number;
  sessionExpiresAt: number | null;
  authTime: number | null;
}

type Row = {
  id: string; user_id: string; client_id: string; scope: string; session_id: string; expires_at: number;
  revoked_at: number | null; created_at: number; session_expires_at: number | null; auth_time: number | null;
};

const toRecord = (r: Row): RefreshTokenRecord => ({
  digest: r.id, userId: r.user_id, clientId: r.client_id, scope: r.scope, sessionId: r.session_id, expiresAt: Number(r.expires_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at), createdAt: Number(r.created_at),
  sessionExpiresAt: r.session_expires_at === null ? null : Number(r.session_expires_at), authTime: r.auth_time === null ? null : Number(r.auth_time),
});

const toRow = (t: RefreshTokenRecord): Row => ({
  id: t.digest, user_id: t.userId, client_id: t.clientId, scope: t.scope, session_id: t.sessionId, expires_at: t.expiresAt,
  revoked_at: t.revokedAt, created_at: t.createdAt, session_expires_at: t.sessionExpiresAt, auth_time: t.authTime,
});

export async function findRefreshToken(store: Store, digest: string): Promise<RefreshTokenRecord | undefined> {
  const row = await store.read.selectFrom('refresh_tokens').selectAll().where('id', '=', digest).executeTakeFirst();
  return row && toRecord(row);
}

export async function insertRefreshToken(store: Store, token: RefreshTokenRecord): Promise<void> {
  await store.writes.run((trx) => trx.insertInto('refresh_tokens').values(toRow(token)).execute());
}

/**
 * Rotation: revokes `oldDigest` and stores its successor in one transaction,
 * only if the old token is still live (so two concurrent uses of one refresh
 * token cannot both succeed, even across server processes). False when it was not.
 */
export async function rotateRefreshToken(store: Store, oldDigest: string, next: RefreshTokenRecord, now: number): Promise<boolean> {
  return store.writes.run(async (trx) => {
    const result = await trx.updateTable('refresh_tokens').set({ revoked_at: now })
      .where('id', '=', oldDigest).where('revoked_at', 'is', null).where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await trx.insertInto('refresh_tokens').values(toRow(next)).execute();
    return true;
  });
}

/** Ends a session: every refresh token it holds stops working. Returns how many were live. */
export async function revokeSession(store: Store, sessionId: string, now: number): Promise<number> {
  const result = await store.writes.run((trx) => trx.updateTable('refresh_tokens').set({ revoked_at: now })
    .where('session_id', '=', sessionId).where('revoked_at', 'is', null).executeTakeFirst());
  return Number(result.numUpdatedRows);
}

/** Housekeeping: forgets refresh tokens that expired before `before`. */
export async function deleteExpiredRefreshTokens(store: Store, before: number): Promise<void> {
  await store.writes.run((trx) => trx.deleteFrom('refresh_tokens').where('expires_at', '<', before).execute());
}
