import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * SQLite keeps readings in the order history reads them: a table without
 * rowid whose key is (asset, attribute, receive time, seq), so a reading is
 * written into one tree instead of a table and an index holding all of it
 * again, and takes half the room. Its seq is no longer the rowid: the writers
 * number readings from `reading_seq` (one row, moved once per write). The
 * index by observation time stays. PostgreSQL's heap has no such order: there
 * the history index becomes the table's key. Plain statements only, so the
 * step is correct in one transaction.
 */
export const readingsClustered: StoreMigration = {
  name: '1300-readings-clustered',
  async sqlite(db) {
    await sql`create table readings_clustered (
      asset_seq integer not null, attr_name text not null, recv_time integer not null, seq integer not null,
      observed_time integer not null, attr_type text not null, attr_value text not null,
      primary key (asset_seq, attr_name, recv_time, seq)) without rowid`.execute(db);
    await sql`insert into readings_clustered (asset_seq, attr_name, recv_time, seq, observed_time, attr_type, attr_value)
      select asset_seq, attr_name, recv_time, seq, coalesce(observed_time, recv_time), attr_type, attr_value from readings order by asset_seq, attr_name, recv_time, seq`.execute(db);
    await sql`create table reading_seq (id integer primary key check (id = 1), last integer not null)`.execute(db);
    await sql`insert into reading_seq (id, last) select 1, coalesce(max(seq), 0) from readings`.execute(db);
    await sql`drop table readings`.execute(db);
    await sql`alter table readings_clustered rename to readings`.execute(db);
    await sql`create index readings_attr_observed on readings (asset_seq, attr_name, observed_time, seq)`.execute(db);
  },
  // PostgreSQL: the history index becomes the key (with the values beside it), so a reading is
  // entered in one index fewer; seq alone is looked up by nothing.
  async postgres(db) {
    await sql`alter table readings drop constraint readings_pkey`.execute(db);
    await sql`drop index readings_attr_history`.execute(db);
    await sql`alter table readings add constraint readings_pkey primary key (asset_seq, attr_name, recv_time, seq) include (attr_type, attr_value)`.execute(db);
  },
};
