import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * A site's own retention of raw readings, beside the platform's
 * (HISTORY_RETENTION): a table of its own, so that sites keep their shape and
 * a site without a row simply follows the platform.
 */
export const siteHistoryRetention: StoreMigration = {
  name: '1050-site-history-retention',
  sqlite: (db) => createTable(db),
  postgres: (db) => createTable(db),
};

async function createTable(db: Parameters<StoreMigration['sqlite']>[0]): Promise<void> {
  await sql`create table site_retention (site text primary key, retention text not null)`.execute(db);
}
