import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * A site's own retention of raw readings, beside the platform's
 * (HISTORY_RETENTION): a table of its own, so that sites keep their shape and
 * a site without a row simply follows the platform. And a count of the writes
 * that dropped history, which the answers kept for a range compare: a range
 * may lose readings and gain as many.
 */
export const siteHistoryRetention: StoreMigration = {
  name: '1050-site-history-retention',
  sqlite: (db) => createTable(db),
  postgres: (db) => createTable(db),
};

async function createTable(db: Parameters<StoreMigration['sqlite']>[0]): Promise<void> {
  await sql`create table site_retention (site text primary key, retention text not null)`.execute(db);
  await sql`create table history_drops (id integer primary key, drops bigint not null)`.execute(db);
  await sql`insert into history_drops (id, drops) values (1, 0)`.execute(db);
}
