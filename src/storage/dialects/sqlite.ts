import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import type { DialectAdapter, Executor, GeoBox, IndexedPosition } from './adapter.js';
import { sqlitePositionsInBox } from './discovery.js';
import { startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from './sqlite-checkpointer.js';
import { withStatementCache } from './statement-cache.js';

/**
 * Page cache of each connection, in KiB. The reader's is the smaller: its
 * reads are spread over the whole file (an asset among a million), where a
 * bigger cache buys few hits and the operating system's cache holds the file
 * anyway; the writer's keeps the index pages every write descends.
 */
const WRITER_CACHE_KIB = 65_536;
const READER_CACHE_KIB = 32_768;

/** Positions written by one statement (each row count is a statement of its own to prepare). */
const POSITIONS_PER_STATEMENT = 32;

function openFile(file: string, cacheKib: number): SQLite.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const conn = new SQLite(file);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.pragma('busy_timeout = 5000');
  conn.pragma('foreign_keys = ON');
  conn.pragma(`cache_size = -${cacheKib}`);
  conn.pragma('temp_store = MEMORY');
  return conn;
}

export interface SqliteHandles {
  write: Kysely<Database>;
  read: Kysely<Database>;
  adapter: DialectAdapter;
}

/**
 * Two connections on one file: the writer, which the write queue holds during a
 * batch, and a reader that WAL lets see the last committed state meanwhile.
 * An in-memory store has a single connection (a second one would see nothing).
 */
export function openSqlite(file: string): SqliteHandles {
  const writeConn = openFile(file, WRITER_CACHE_KIB);
  // Checkpoints run beside the writer, not inside its commits (./sqlite-checkpointer.ts).
  const checkpointer = file === ':memory:' ? undefined : startCheckpointer(file);
  if (checkpointer) writeConn.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`);
  const write = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(writeConn, () => void checkpointer?.stop()) }) });
  const read = file === ':memory:' ? write : new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(openFile(file, READER_CACHE_KIB)) }) });
  return { write, read, adapter: sqliteAdapter };
}

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  beginSql: 'begin immediate',
  async indexPositions(db: Executor, positions: readonly IndexedPosition[]) {
    // Several rows a statement: a batch of creates writes its positions together.
    const values = (rows: readonly IndexedPosition[]) => sql.join(rows.map((p) => sql`(${p.seq}, ${p.longitude}, ${p.longitude}, ${p.latitude}, ${p.latitude})`));
    for (let i = 0; i < positions.length; i += POSITIONS_PER_STATEMENT) {
      const rows = positions.slice(i, i + POSITIONS_PER_STATEMENT);
      const city = rows.filter((p) => p.city);
      const experiment = rows.filter((p) => !p.city);
      if (city.length > 0) await sql`insert or replace into city_positions (id, min_lon, max_lon, min_lat, max_lat) values ${values(city)}`.execute(db);
      if (experiment.length > 0) await sql`insert or replace into experiment_positions (id, min_lon, max_lon, min_lat, max_lat) values ${values(experiment)}`.execute(db);
    }
  },
  async unindexPosition(db: Executor, seq: number) {
    await sql`delete from city_positions where id = ${seq}`.execute(db);
    await sql`delete from experiment_positions where id = ${seq}`.execute(db);
  },
  async seqsInBox(db: Executor, box: GeoBox) {
    const result = await sqlitePositionsInBox(box).execute(db);
    return result.rows.map((r) => r.id);
  },
  isUniqueViolation(error: unknown) {
    return error instanceof Error && (error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true
      && /UNIQUE|PRIMARY KEY/.test(error.message);
  },
  isUnavailable(error: unknown) {
    const code = (error as { code?: string } | null)?.code ?? '';
    return ['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY'].some((c) => code.startsWith(c));
  },
};
