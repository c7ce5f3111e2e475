import { sql, type Kysely } from 'kysely';
import { OFF_TIME_READING } from '../shared/off-time-readings.js';
import type { StoreMigration } from './index.js';

/**
 * The index by observation time keeps only the readings received more than
 * five minutes from their TimeInstant (../shared/off-time-readings.ts): the
 * others are found through the history's receive-time order, and a reading on
 * time is written into one tree instead of two. Plain statements only, so
 * that the step is correct inside one transaction.
 */
export const readingsOffTimeIndex: StoreMigration = {
  name: '1500-readings-off-time-index',
  sqlite: (db) => partialIndex(db),
  postgres: (db) => partialIndex(db),
};

async function partialIndex(db: Kysely<any>): Promise<void> {
  await sql`drop index readings_attr_observed`.execute(db);
  await sql.raw(`create index readings_off_time on readings (asset_seq, attr_name, observed_time, seq) where ${OFF_TIME_READING}`).execute(db);
}
