import { sql, type Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * Each reading keeps the TimeInstant it was sent with (observed_time) beside
 * its receive time, so that history can be ordered and filtered by when a
 * site observed it, and buffered readings pushed late land at their own time.
 * Readings written before this keep their receive time as observation time:
 * the TimeInstant of each write was only kept as a reading's text value.
 * Plain statements only, so that the step is correct inside one transaction.
 */
export const readingsObservedTime: StoreMigration = {
  name: '1000-readings-observed-time',
  sqlite: (db) => addObservedTime(db, 'integer'),
  postgres: (db) => addObservedTime(db, 'bigint'),
};

async function addObservedTime(db: Kysely<any>, bigint: 'integer' | 'bigint'): Promise<void> {
  await sql.raw(`alter table readings add column observed_time ${bigint}`).execute(db);
  await sql`update readings set observed_time = recv_time`.execute(db);
  // The walk of one attribute by observation time; ties keep write order, as by receive time.
  await sql`create index readings_attr_observed on readings (asset_seq, attr_name, observed_time, seq)`.execute(db);
}
