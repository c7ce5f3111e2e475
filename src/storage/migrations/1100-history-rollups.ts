import { sql, type Kysely } from 'kysely';
import { postgresReadingQueries } from '../postgres/reading-queries.js';
import { rebuildRollups } from '../shared/reading-rollups.js';
import { sqliteReadingQueries } from '../sqlite/reading-queries.js';
import type { StoreMigration } from './index.js';

/**
 * Hourly and daily rollups per series (asset, attribute), kept current with
 * every write from now on and built here for the readings already stored.
 * Plain statements only, so that the step is correct inside one transaction.
 * The second index serves the dropping of expired rollups (ROLLUP_RETENTION).
 */
export const historyRollups: StoreMigration = {
  name: '1100-history-rollups',
  async sqlite(db) {
    await sql.raw(`create table reading_rollups (${columns('integer', 'real')}, primary key (asset_seq, attr_name, period_ms, bucket)) without rowid`).execute(db);
    await finish(db, sqliteReadingQueries.numericValue());
  },
  async postgres(db) {
    await sql.raw(`create table reading_rollups (${columns('bigint', 'double precision')}, primary key (asset_seq, attr_name, period_ms, bucket))`).execute(db);
    await finish(db, postgresReadingQueries.numericValue());
  },
};

const columns = (bigint: string, double: string): string => `asset_seq ${bigint} not null, attr_name text not null, period_ms ${bigint} not null,
  bucket ${bigint} not null, n ${bigint} not null, total ${double} not null, least ${double} not null, greatest ${double} not null,
  first_time ${bigint} not null, first_value ${double} not null, last_time ${bigint} not null, last_value ${double} not null`;

async function finish(db: Kysely<any>, numeric: Parameters<typeof rebuildRollups>[1]): Promise<void> {
  await sql`create index reading_rollups_expiry on reading_rollups (period_ms, bucket)`.execute(db);
  // The readings as this step found them: names spelled out in each (before 1700-readings-compact).
  await rebuildRollups(db, numeric, sql`(select asset_seq, attr_name, recv_time, attr_value, seq as ord from readings)`);
}
