import { sql, type Kysely } from 'kysely';
import { leaveLatestDayOpen } from '../shared/reading-rollups.js';
import type { StoreMigration } from './index.js';

/**
 * Daily rollups built from their hours once each day has ended, instead of
 * written with every reading (src/domain/history-rollups.ts): the day before
 * which every day is built. The days stored so far are whole, since every
 * write kept them current; the latest is left to its hours.
 */
export const rollupDays: StoreMigration = {
  name: '1600-rollup-days',
  sqlite: (db) => createTable(db),
  postgres: (db) => createTable(db),
};

async function createTable(db: Kysely<any>): Promise<void> {
  await sql`create table rollup_days (id integer primary key check (id = 1), built_before bigint not null)`.execute(db);
  await sql`insert into rollup_days (id, built_before) values (1, 0)`.execute(db);
  await leaveLatestDayOpen(db);
}
