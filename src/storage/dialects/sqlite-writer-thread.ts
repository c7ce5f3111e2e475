import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';
import type { OperationArgs, OperationResult, WriteOperation } from '../write-operations.js';

/**
 * The SQLite writer in a thread of its own. A single Node thread serving
 * federation writes spent about half of each update inside better-sqlite3,
 * which runs synchronously: while a batch committed, no request was parsed,
 * checked or answered. Here the writer's connection lives in a worker thread,
 * so HTTP and the store use the machine's two cores at once.
 *
 * Every write still goes through this one connection, in the order sent:
 * transactions, savepoints and the write queue's group commit behave as on an
 * in-process connection. A message between threads costs as much as a
 * statement, so the asset writes of the federation (../write-operations.ts)
 * go as one message per transaction and run there; the other writes
 * (identity, sites, migrations) send their statements one by one.
 */

/**
 * Starts the thread's module (./sqlite-writer.ts). Run from the TypeScript
 * sources (tests, `tsx`), the module is compiled on the fly, which Node 20's
 * module hooks do not do inside a worker: tsx's require hook does.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.tsx) {
  require(workerData.tsx).register();
  require(workerData.entry);
} else {
  import(workerData.entry).catch((error) => setImmediate(() => { throw error; }));
}
`;

function threadModule(): { entry: string; tsx?: string } {
  if (import.meta.url.endsWith('.ts')) {
    return { entry: fileURLToPath(new URL('./sqlite-writer.ts', import.meta.url)), tsx: createRequire(import.meta.url).resolve('tsx/cjs/api') };
  }
  // Next to this module: dist/bin/sqlite-writer.js beside the bundled server (scripts/bundle.mjs).
  return { entry: new URL('./sqlite-writer.js', import.meta.url).href };
}

/** What the writer thread is given to open its connection. */
export interface WriterThreadOptions {
  file: string;
  /** Pragmas run in order right after opening, e.g. `journal_mode = WAL`. */
  pragmas: string[];
  /** Runs once the thread has closed its connection; closing the thread waits for it. */
  onClose?: () => Promise<void> | void;
}

/** A message to the thread: a statement, a whole transaction running an operation, or the end. */
export type WriterRequest =
  | { sql: string; parameters: readonly unknown[] }
  | { transaction: { begin: string; changeLog: boolean; operation: WriteOperation; args: string } }
  | { close: true };

export interface WriterReply {
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  value?: unknown;
  /** The seq of the last change a transaction appended to the change log, if any. */
  lastChange?: number;
  error?: { message: string; code?: string };
}

interface Waiting {
  resolve: (reply: WriterReply) => void;
  reject: (error: Error) => void;
}

/** The thread's errors keep their SQLite code: callers tell a duplicate from an outage by it. */
function rebuildError(error: NonNullable<WriterReply['error']>): Error {
  return error.code?.startsWith('SQLITE_') ? new SQLite.SqliteError(error.message, error.code) : new Error(error.message);
}

/**
 * The writer thread and its one connection. One user at a time holds it
 * (`acquire`): a Kysely query or transaction, or a whole operation; the
 * thread answers messages in the order sent.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting: Waiting[] = [];
  private failure: Error | undefined;
  private readonly exited: Promise<void>;
  private lock: Promise<void> = Promise.resolve();

  constructor(options: WriterThreadOptions) {
    const { entry, tsx } = threadModule();
    this.worker = new Worker(BOOTSTRAP, { eval: true, workerData: { entry, tsx, file: options.file, pragmas: options.pragmas } });
    this.worker.on('message', (reply: WriterReply) => this.waiting.shift()?.resolve(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', () => {
        this.fail(Object.assign(new Error('the SQLite writer thread has stopped'), { code: 'SQLITE_IOERR' }));
        void Promise.resolve(options.onClose?.()).finally(resolve);
      });
    });
    // Held only while a message is under way: an idle store never keeps the process alive.
    // (After the listeners: adding a message listener holds the thread's port again.)
    this.worker.unref();
  }

  /** Has the thread stopped (closed, or ended by an error)? Then every write fails. */
  get stopped(): boolean {
    return this.failure !== undefined;
  }

  /** Waits for the connection; the returned function gives it back. */
  async acquire(): Promise<() => void> {
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise((resolve) => (release = resolve));
    await previous;
    return release;
  }

  async execute<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const reply = await this.send({ sql: compiled.sql, parameters: compiled.parameters });
    if (reply.rows) return { rows: reply.rows as R[] };
    return {
      numAffectedRows: reply.changes === undefined ? undefined : BigInt(reply.changes),
      insertId: reply.lastInsertRowid === undefined ? undefined : BigInt(reply.lastInsertRowid),
      rows: [],
    };
  }

  /**
   * Begins a transaction in the thread, runs the operation there and commits
   * it (or rolls it back and throws). The connection is held only to send it:
   * the thread runs it whole, in its turn, so the next one may be sent before
   * this one is answered. With `changeLog`, the operation's changes are
   * appended to the change log before the commit.
   */
  async transaction<K extends WriteOperation>(
    begin: string, changeLog: boolean, operation: K, args: OperationArgs<K>,
  ): Promise<{ value: OperationResult<K>; lastChange: number | undefined }> {
    const release = await this.acquire();
    let reply: Promise<WriterReply>;
    try {
      // As JSON: a batch of assets is many small objects, which JSON passes several times faster than structured cloning.
      reply = this.send({ transaction: { begin, changeLog, operation, args: JSON.stringify(args) } });
    } finally {
      release();
    }
    const { value, lastChange } = await reply;
    return { value: value as OperationResult<K>, lastChange };
  }

  private async send(request: WriterRequest): Promise<WriterReply> {
    if (this.failure) throw this.failure;
    const reply = await new Promise<WriterReply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.ref();
      this.worker.postMessage(request);
    });
    if (this.waiting.length === 0) this.worker.unref();
    if (reply.error) throw rebuildError(reply.error);
    return reply;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const w of this.waiting.splice(0)) w.reject(this.failure);
  }

  async close(): Promise<void> {
    if (!this.failure) {
      this.worker.ref();
      this.worker.postMessage({ close: true } satisfies WriterRequest);
    }
    await this.exited;
  }
}

/** Kysely's SQLite driver, with the connection in the writer thread. */
class WriterThreadDriver implements Driver {
  private release: (() => void) | undefined;
  private readonly connection: DatabaseConnection;

  constructor(private readonly thread: WriterThread) {
    this.connection = {
      executeQuery: (compiled) => thread.execute(compiled),
      // eslint-disable-next-line require-yield -- no statement of the write path streams; refused rather than buffered
      async *streamQuery() {
        throw new Error('the SQLite writer does not stream results; read through the reader connection');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.thread.acquire();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    // The store closes the thread (./sqlite.ts hands it over): it runs whether or not Kysely ever used it.
  }
}

/** A Kysely dialect for SQLite whose one connection is the writer thread's. */
export function writerThreadDialect(thread: WriterThread): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WriterThreadDriver(thread),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
