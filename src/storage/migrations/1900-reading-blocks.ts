import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * PostgreSQL keeps the readings of days that have ended packed, a block per
 * series (asset and attribute) and day: a row of PostgreSQL costs some thirty
 * bytes of header and pointer before its first column, more than a reading
 * may take in all. A block holds its readings in receive order as arrays
 * (times and seqs as offsets from the block's first), which the store
 * compresses. Recent and off-time
 * readings stay rows of `readings` (../postgres/reading-blocks.ts). SQLite's
 * rows are small enough: nothing to do.
 */
export const readingBlocks: StoreMigration = {
  name: '1900-reading-blocks',
  sqlite: async () => {},
  async postgres(db) {
    await sql`create table reading_blocks (
      asset_seq bigint not null, first_time bigint not null, last_time bigint not null, first_seq bigint not null,
      name_id integer not null, n integer not null,
      time_offsets integer[] not null, seq_offsets integer[] not null, observed_offsets integer[] not null,
      type_ids integer[] not null, attr_values text[] not null,
      primary key (asset_seq, name_id, first_time, first_seq))`.execute(db);
    // A walk of several attributes of an asset bounds its blocks in time order (../postgres/reading-blocks.ts, withinReach).
    await sql`create index reading_blocks_by_time on reading_blocks (asset_seq, first_time, first_seq) include (name_id, n, last_time)`.execute(db);
    // Compressed from a few hundred bytes on (the default waits for two kilobytes), with LZ4, which reads back fastest.
    await sql`alter table reading_blocks set (toast_tuple_target = 128)`.execute(db);
    for (const column of ['time_offsets', 'seq_offsets', 'observed_offsets', 'type_ids', 'attr_values']) {
      await sql`alter table reading_blocks alter column ${sql.ref(column)} set compression lz4`.execute(db);
    }
  },
};
