import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreParts } from '../store-parts.js';
import { committerOn, type BatchItem } from '../write-batch.js';
import { startCheckpointer, WRITER_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { sqliteDialect } from './dialect.js';
import { SqliteMigrationDialect } from './migration-dialect.js';
import { withStatementCache } from './statement-cache.js';
import { WriterThread } from './writer-thread.js';
import { writerThreadDialect } from './writer-thread-driver.js';

/**
 * Page cache of each connection, in KiB. Reads and writes of a large store
 * are spread over the whole file (an asset among a million), where a bigger
 * cache buys few hits and the operating system's cache holds the file anyway;
 * this much keeps the interior pages of every index, which every write and
 * read descends, within the server's memory bound (bench/RESULTS.md).
 */
const WRITER_CACHE_KIB = 32_768;
const READER_CACHE_KIB = 32_768;
/** Page cache of the connection for long walks (exports): each page is read once, in order, and a big cache would only fill. */
const SCAN_CACHE_KIB = 2_048;

/**
 * How every connection of a file store is set up, in order. A write lock held elsewhere (another
 * process on the file) is waited for at most the store's bound, then the write is answered 503.
 */
const pragmasFor = (cacheKib: number, busyMs: number): string[] => [
  'journal_mode = WAL',
  'synchronous = NORMAL',
  `busy_timeout = ${Math.ceil(busyMs)}`,
  'foreign_keys = ON',
  `cache_size = -${cacheKib}`,
  'temp_store = MEMORY',
];

function openFile(file: string, cacheKib: number, busyMs: number): SQLite.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const conn = new SQLite(file);
  for (const pragma of pragmasFor(cacheKib, busyMs)) conn.pragma(pragma);
  return conn;
}

/** Page cache of a migration's connection, in KiB: it lives for the few statements of a start. */
const MIGRATION_CACHE_KIB = 8_192;
/** Migrations run at a start, before any request: they wait for another process's lock as long as they did. */
const MIGRATION_BUSY_MS = 5000;

/**
 * Two connections on one file: the writer, which the write pipeline commits on,
 * in a thread of its own (./writer-thread.ts), and a reader
 * that WAL lets see the last committed state meanwhile. An in-memory store has
 * a single connection, in process (a second one would see nothing).
 */
export function openSqlite(file: string, changeLog: boolean, timeoutMs: number): StoreParts {
  const stats = () => ({ total: 1, idle: 1, waiting: 0 });
  if (file === ':memory:') {
    // Its one connection also runs the migrations, each in a transaction (./migration-dialect.ts).
    const write = new Kysely<Database>({ dialect: new SqliteMigrationDialect({ database: withStatementCache(openFile(file, WRITER_CACHE_KIB, timeoutMs)) }) });
    return { write, read: write, dialect: sqliteDialect, committer: committerOn(write, sqliteDialect, changeLog), livesInProcess: true, poolStats: stats };
  }
  // The reader opens first, here and synchronously: a file that cannot be opened fails the store's opening.
  const read = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(openFile(file, READER_CACHE_KIB, timeoutMs)) }) });
  const scan = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(openFile(file, SCAN_CACHE_KIB, timeoutMs)) }) });
  // Checkpoints run beside the writer, not inside its commits (./checkpointer.ts).
  const checkpointer = startCheckpointer(file);
  const thread = new WriterThread({
    file,
    pragmas: [...pragmasFor(WRITER_CACHE_KIB, timeoutMs), `wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT_PAGES}`],
    changeLog,
    onWrite: () => checkpointer.wrote(),
    // A closed store leaves nothing running on its file: the checkpointing thread has ended too.
    onClose: () => checkpointer.stop(),
  });
  const write = new Kysely<Database>({ dialect: writerThreadDialect(thread) });
  // A batch holding a job (a closure) cannot cross to the thread: its statements go one by one.
  const statementByStatement = committerOn(write, sqliteDialect, changeLog);
  const committer = {
    commit: (items: readonly BatchItem[]) => (items.some((i) => i.kind === 'job') ? statementByStatement.commit(items) : thread.commit(items)),
    // One batch running in the thread and one waiting, so that it never waits for this thread between two.
    batchesInFlight: 2,
    thread,
  };
  return {
    write,
    read,
    scan,
    dialect: sqliteDialect,
    committer,
    livesInProcess: true,
    poolStats: stats,
    writable: () => !thread.stopped,
    // The writer's thread runs from the opening, whether or not Kysely ever used it: the store ends it.
    closeBeside: () => thread.close(),
    // Migrations' statements need no messages on a connection of this thread, and the writer's thread starts meanwhile.
    openMigrationConnection: () => new Kysely<Database>({ dialect: new SqliteMigrationDialect({ database: openFile(file, MIGRATION_CACHE_KIB, MIGRATION_BUSY_MS) }) }),
  };
}
