import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * PostgreSQL's history index also carries each reading's observation time, so
 * that an export (which writes it on every line) reads the index alone instead
 * of fetching every row from the table, where one asset's readings lie spread
 * among every other asset's. SQLite's table is its index already: nothing to do.
 */
export const readingsObservedInKey: StoreMigration = {
  name: '1800-readings-observed-in-key',
  sqlite: async () => {},
  async postgres(db) {
    // The eight-byte observation time before the four-byte type: no padding between them.
    await sql`alter table readings drop constraint readings_pkey,
      add constraint readings_pkey primary key (asset_seq, name_id, recv_time, seq) include (observed_time, type_id, attr_value)`.execute(db);
  },
};
