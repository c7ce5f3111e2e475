import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { appendSqliteChanges } from './sqlite-changes.js';
import type { DialectAdapter, Executor, GeoBox, IndexedPosition } from './adapter.js';
import { sqlitePositionsInBox } from './discovery.js';
import { startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from './sqlite-checkpointer.js';
import { withStatementCache } from './statement-cache.js';
import { WriterThread, writerThreadDialect } from './sqlite-writer-thread.js';

/**
 * Page cache of each connection, in KiB. Reads and writes of a large store
 * are spread over the whole file (an asset among a million), where a bigger
 * cache buys few hits and the operating system's cache holds the file anyway;
 * 32 MiB keeps the interior pages of every index, which every write and read
 * descends. With a million assets under reads and 1,000 updates a second, a
 * writer's cache of 64 MiB took the server's peak memory to 297 MiB (of the
 * 300 allowed); with 32 MiB it measured 251–336 MiB over five runs, the
 * difference being V8's heap (halving both caches did not lower it).
 */
const WRITER_CACHE_KIB = 32_768;
const READER_CACHE_KIB = 32_768;

/** Positions written by one statement (each row count is a statement of its own to prepare). */
const POSITIONS_PER_STATEMENT = 32;

/** How every connection of a file store is set up, in order. */
const pragmasFor = (cacheKib: number): string[] => [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'busy_timeout = 5000',
  'foreign_keys = ON',
  `cache_size = -${cacheKib}`,
  'temp_store = MEMORY',
];

function openFile(file: string, cacheKib: number): SQLite.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const conn = new SQLite(file);
  for (const pragma of pragmasFor(cacheKib)) conn.pragma(pragma);
  return conn;
}

export interface SqliteHandles {
  write: Kysely<Database>;
  read: Kysely<Database>;
  adapter: DialectAdapter;
  /** The writer's thread (a file store), which runs the write operations of ../write-operations.ts whole. */
  thread?: WriterThread;
  /** A connection of this thread for migrations, while the writer's thread starts (a file store). */
  openMigrationConnection?: () => Kysely<Database>;
}

/** Page cache of a migration's connection, in KiB: it lives for the few statements of a start. */
const MIGRATION_CACHE_KIB = 8_192;

/**
 * Two connections on one file: the writer, which the write queue holds during a
 * batch, in a thread of its own (./sqlite-writer-thread.ts), and a reader
 * that WAL lets see the last committed state meanwhile. An in-memory store has
 * a single connection, in process (a second one would see nothing).
 */
export function openSqlite(file: string): SqliteHandles {
  if (file === ':memory:') {
    const write = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(openFile(file, WRITER_CACHE_KIB)) }) });
    return { write, read: write, adapter: sqliteAdapter };
  }
  // The reader opens first, here and synchronously: a file that cannot be opened fails the store's opening.
  const read = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(openFile(file, READER_CACHE_KIB)) }) });
  // Checkpoints run beside the writer, not inside its commits (./sqlite-checkpointer.ts).
  const checkpointer = startCheckpointer(file);
  const thread = new WriterThread({
    file,
    pragmas: [...pragmasFor(WRITER_CACHE_KIB), `wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`],
    // A closed store leaves nothing running on its file: the checkpointing thread has ended too.
    onClose: () => checkpointer.stop(),
  });
  const write = new Kysely<Database>({ dialect: writerThreadDialect(thread) });
  const openMigrationConnection = () => new Kysely<Database>({ dialect: new SqliteDialect({ database: openFile(file, MIGRATION_CACHE_KIB) }) });
  return { write, read, adapter: sqliteAdapter, thread, openMigrationConnection };
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
  appendChanges: appendSqliteChanges,
  isUniqueViolation(error: unknown) {
    return error instanceof Error && (error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true
      && /UNIQUE|PRIMARY KEY/.test(error.message);
  },
  isUnavailable(error: unknown) {
    const code = (error as { code?: string } | null)?.code ?? '';
    return ['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY'].some((c) => code.startsWith(c));
  },
};
