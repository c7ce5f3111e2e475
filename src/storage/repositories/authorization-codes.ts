import type { Store } from '../store.js';

/** An authorization code as stored: its SHA-256 digest and the request it answers. */
export interface AuthorizationCodeRecord {
  digest: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  nonce: string | null;
  expiresAt: number;
  usedAt: number | null;
}

export async function insertAuthorizationCode(store: Store, code: AuthorizationCodeRecord): Promise<void> {
  await store.writes.run((trx) => trx.insertInto('authorization_codes').values({
    code_digest: code.digest, client_id: code.clientId, user_id: code.userId, redirect_uri: code.redirectUri,
    code_challenge: code.codeChallenge, scope: code.scope, nonce: code.nonce, expires_at: code.expiresAt, used_at: null,
  }).execute());
}

export type CodeRedemption =
  | { outcome: 'redeemed'; code: AuthorizationCodeRecord }
  | { outcome: 'reused'; code: AuthorizationCodeRecord }
  | { outcome: 'unknown' };

/**
 * Marks a code used, atomically, and returns what it was issued for. A code is
 * redeemed once: a second redemption reports `reused` (the caller then ends the
 * session the first one started). Expiry is the caller's rule, not this one's.
 */
export async function redeemAuthorizationCode(store: Store, digest: string, now: number): Promise<CodeRedemption> {
  return store.writes.run(async (trx) => {
    const row = await trx.selectFrom('authorization_codes').selectAll().where('code_digest', '=', digest).executeTakeFirst();
    if (!row) return { outcome: 'unknown' };
    const code: AuthorizationCodeRecord = {
      digest, clientId: row.client_id, userId: row.user_id, redirectUri: row.redirect_uri, codeChallenge: row.code_challenge,
      scope: row.scope, nonce: row.nonce, expiresAt: Number(row.expires_at), usedAt: row.used_at === null ? null : Number(row.used_at),
    };
    const result = await trx.updateTable('authorization_codes').set({ used_at: now })
      .where('code_digest', '=', digest).where('used_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) === 1 ? { outcome: 'redeemed', code } : { outcome: 'reused', code };
  });
}

/** Housekeeping: forgets codes that expired before `before`. */
export async function deleteExpiredAuthorizationCodes(store: Store, before: number): Promise<void> {
  await store.writes.run((trx) => trx.deleteFrom('authorization_codes').where('expires_at', '<', before).execute());
}
