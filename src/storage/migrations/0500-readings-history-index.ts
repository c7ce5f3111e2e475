import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * One attribute's history is read straight from one index. Readings of many
 * assets arrive interleaved, so the rows of one attribute lie scattered over the
 * table: reading a thousand of them through an index that holds only the key
 * costs a thousand table pages. This index holds the whole reading, in the order
 * the datasource returns it (receive time, then write order), so such a range is
 * a few consecutive index pages and needs no sort. It replaces
 * readings_asset_attr_time, which is its prefix, so writes maintain no extra index.
 */
export const readingsHistoryIndex: StoreMigration = {
  name: '0500-readings-history-index',
  async sqlite(db) {
    // seq is the rowid; naming it keeps ties in write order without a sort.
    await sql`create index readings_attr_history on readings (asset_seq, attr_name, recv_time, seq, attr_type, attr_value)`.execute(db);
    await sql`drop index readings_asset_attr_time`.execute(db);
  },
  async postgres(db) {
    // INCLUDE keeps the values out of the key (no ordering work on them) yet allows index-only scans.
    await sql`create index readings_attr_history on readings (asset_seq, attr_name, recv_time, seq) include (attr_type, attr_value)`.execute(db);
    await sql`drop index readings_asset_attr_time`.execute(db);
  },
};
