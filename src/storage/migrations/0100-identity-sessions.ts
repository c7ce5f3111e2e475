import type { Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * Sign-in sessions: a refresh token carries when its session must end however
 * often it is refreshed, and when the person entered their password (ID tokens
 * repeat it). Indexes let housekeeping drop expired codes and refresh tokens.
 */
export const identitySessions: StoreMigration = {
  name: '0100-identity-sessions',
  sqlite: (db) => addSessionColumns(db, 'integer'),
  postgres: (db) => addSessionColumns(db, 'bigint'),
};

async function addSessionColumns(db: Kysely<any>, bigint: 'bigint' | 'integer'): Promise<void> {
    await db.schema.alterTable('refresh_tokens').addColumn('session_expires_at', bigint).execute();
    await db.schema.alterTable('refresh_tokens').addColumn('auth_time', bigint).execute();
    await db.schema.createIndex('refresh_tokens_expires').on('refresh_tokens').column('expires_at').execute();
    await db.schema.createIndex('authorization_codes_expires').on('authorization_codes').column('expires_at').execute();
}
