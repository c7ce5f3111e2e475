import { sql, type Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * The permissions interface: users are listed in the same order on both stores
 * (byte order of the user name, whatever the PostgreSQL server's locale), and
 * found by e-mail address regardless of case without a scan.
 */
export const permissionsLookups: StoreMigration = {
  name: '0300-permissions',
  sqlite: (db) => indexEmails(db),
  postgres: async (db) => {
    await sql`alter table users alter column username type text collate "C"`.execute(db);
    await indexEmails(db);
  },
};

async function indexEmails(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_email_lower').on('users').expression(sql`lower(email)`).execute();
}
