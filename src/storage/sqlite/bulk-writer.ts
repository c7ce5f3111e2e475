import SQLite from 'better-sqlite3';
import type { BulkAsset, BulkReading, BulkWriter } from '../bulk-writer.js';
import { concatRows } from '../prepared-query.js';
import { sentValue } from './sent-value.js';

const ASSET_COLUMNS = ['seq', 'id', 'type', 'site', 'service', 'provider', 'grp', 'name', 'experimenter', 'experiment', 'attrs', 'latitude', 'longitude', 'recorded_at', 'last_reading_at', 'created_at'];
const READING_COLUMNS = ['seq', 'asset_seq', 'name_id', 'recv_time', 'observed_offset', 'type_id', 'sent_value'];
const ATTRIBUTE_COLUMNS = ['asset_seq', 'name', 'type'];

/** Tables whose secondary indexes are dropped during the load and built again after it (sorting beats inserting). */
const REINDEXED_TABLES = ['assets', 'readings'];

/** Rows per multi-row INSERT: few statements, well under SQLite's 32,766 parameters. */
const ROWS_PER_STATEMENT = 200;

const assetValues = (a: BulkAsset): unknown[] => [
  a.seq, a.id, a.type, a.site, a.service, a.provider, a.group, a.name, a.experimenter, a.experiment, a.attrs,
  a.latitude, a.longitude, a.recordedAt, a.lastReadingAt, a.createdAt,
];
const readingValues = (r: BulkReading, seq: number, term: (text: string) => number): unknown[] =>
  [seq, r.assetSeq, term(r.name), r.recvTime, r.observedTime - r.recvTime, term(r.type), sentValue(r.value, r.observedTime)];

/** A prepared INSERT of `rows` rows, and one of a single row for the remainder. */
function inserter(conn: SQLite.Database, table: string, columns: string[]) {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const prepare = (rows: number) => conn.prepare(`insert into ${table} (${columns.join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')}`);
  const many = prepare(ROWS_PER_STATEMENT);
  const one = prepare(1);
  return <T>(rows: T[], values: (row: T) => unknown[]) => {
    let i = 0;
    for (; i + ROWS_PER_STATEMENT <= rows.length; i += ROWS_PER_STATEMENT) {
      const params: unknown[] = [];
      for (let j = i; j < i + ROWS_PER_STATEMENT; j++) params.push(...values(rows[j] as T));
      many.run(params);
    }
    for (; i < rows.length; i++) one.run(values(rows[i] as T));
  };
}

/**
 * A bulk writer on its own better-sqlite3 connection, for a store nothing else
 * uses meanwhile. The load is not journaled and the secondary indexes are built
 * after it (a failed load leaves a file to throw away, never a half-served
 * store); WAL, which the server expects, is restored at the end.
 */
export function openSqliteBulkWriter(file: string): BulkWriter {
  const conn = new SQLite(file);
  conn.pragma('journal_mode = OFF');
  conn.pragma('synchronous = OFF');
  conn.pragma('cache_size = -1048576');
  conn.pragma('temp_store = MEMORY');
  const row = conn.prepare('select coalesce(max(seq), 0) + 1 as next from assets').get() as { next: number };
  // Indexes declared by the migrations (constraint indexes have no SQL and stay), whatever they are today.
  const indexes = conn.prepare(`select name, sql from sqlite_master where type = 'index' and sql is not null and tbl_name in (${REINDEXED_TABLES.map(() => '?').join(', ')})`)
    .all(...REINDEXED_TABLES) as Array<{ name: string; sql: string }>;
  for (const index of indexes) conn.exec(`drop index "${index.name}"`);
  const firstSeq = Number(row.next);
  const insertAssets = inserter(conn, 'assets', ASSET_COLUMNS);
  const insertReadings = inserter(conn, 'readings', READING_COLUMNS);
  const insertAttributes = inserter(conn, 'asset_attributes', ATTRIBUTE_COLUMNS);

  const addAssets = conn.transaction((rows: BulkAsset[]) => {
    insertAssets(rows, assetValues);
    const attributes = concatRows(rows, (a) => a.attributeTypes.map(([name, type]) => [a.seq, name, type]));
    insertAttributes(attributes, (r) => r);
  });
  // Readings are numbered here, as the writers number them (migration 1300-readings-clustered).
  let lastReading = Number((conn.prepare('select last from reading_seq where id = 1').get() as { last: number }).last);
  const keepLastReading = conn.prepare('update reading_seq set last = ? where id = 1');
  // The names and types of readings are numbered here, as the writers number them (migration 1700-readings-compact).
  const terms = new Map((conn.prepare('select id, term from reading_terms').all() as Array<{ id: number; term: string }>).map((r) => [r.term, r.id]));
  const addTerm = conn.prepare('insert into reading_terms (term) values (?) returning id');
  const term = (text: string): number => {
    let id = terms.get(text);
    if (id === undefined) {
      id = Number((addTerm.get(text) as { id: number }).id);
      terms.set(text, id);
    }
    return id;
  };
  const addReadings = conn.transaction((rows: BulkReading[]) => {
    // The inserter takes each row's values once, in order: each takes the next number.
    insertReadings(rows, (r) => readingValues(r, ++lastReading, term));
    keepLastReading.run(lastReading);
  });

  return {
    firstSeq,
    async addAssets(rows) {
      addAssets(rows);
    },
    async addReadings(rows) {
      addReadings(rows);
    },
    async finish() {
      for (const index of indexes) conn.exec(index.sql);
      for (const [tree, site] of [['city_positions', `<> 'experimenters'`], ['experiment_positions', `= 'experimenters'`]]) {
        conn.prepare(`insert or replace into ${tree} (id, min_lon, max_lon, min_lat, max_lat)
          select seq, longitude, longitude, latitude, latitude from assets where seq >= ? and deleted_at is null and site ${site}`).run(firstSeq);
      }
      conn.exec('analyze');
      conn.pragma('journal_mode = WAL');
    },
    async close() {
      conn.close();
    },
  };
}
