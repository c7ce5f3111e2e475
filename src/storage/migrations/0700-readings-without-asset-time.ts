import { sql, type Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * Every reading written kept an entry in readings_asset_time, at a random place
 * of a large index: one more page to dirty, log and write back per update,
 * which cost a third of a federation update's store time. The readings of all
 * of an asset's attributes in time order are now merged from the per-attribute
 * walks of readings_attr_history, which every store (and every reader) already has.
 */
export const readingsWithoutAssetTime: StoreMigration = {
  name: '0700-readings-without-asset-time',
  sqlite: (db) => dropAssetTimeIndex(db),
  postgres: (db) => dropAssetTimeIndex(db),
};

async function dropAssetTimeIndex(db: Kysely<any>): Promise<void> {
  await sql`drop index readings_asset_time`.execute(db);
}
