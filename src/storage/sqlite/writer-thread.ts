import type { MessagePort, Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery, type QueryResult } from 'kysely';
import type { Database } from '../schema.js';
import { commitBatch, type BatchItem, type CommittedBatch } from '../write-batch.js';
import { sqliteDialect } from './dialect.js';
import { withStatementCache } from './statement-cache.js';
import { startModuleThread, threadPort } from '../../module-thread.js';

/**
 * The SQLite writer in a thread of its own: both ends, this module being the
 * thread's entry too. better-sqlite3 runs synchronously, so a writer in the
 * server's thread stopped every request while a batch committed; here the
 * writer's connection lives in a worker thread, and HTTP and the store use
 * two cores at once.
 *
 * Every write still goes through this one connection, in the order sent. A
 * message between threads costs as much as a statement, so a batch of asset
 * writes goes as one message and runs there whole (../write-batch.ts); the
 * other writes (identity, sites, migrations) send their statements one by one
 * (./writer-thread-driver.ts).
 */

/** Marks the worker that serves as the writer, in its workerData. */
const WRITER_ROLE = 'opencity-sqlite-writer';

/** What the writer thread is given to open its connection. */
export interface WriterThreadOptions {
  file: string;
  /** Pragmas run in order right after opening, e.g. `journal_mode = WAL`. */
  pragmas: string[];
  /** Whether batches of asset writes append their changes to the change log. */
  changeLog: boolean;
  /** Runs when a message has changed the file (a batch, or a statement that changed rows). */
  onWrite?: () => void;
  /** Runs once the thread has closed its connection; closing the thread waits for it. */
  onClose?: () => Promise<void> | void;
}

/** What the thread is started with. */
type ThreadData = Pick<WriterThreadOptions, 'file' | 'pragmas' | 'changeLog'>;

/** A message to the thread: a statement, a batch of asset writes (as JSON), or the end. */
type WriterRequest =
  | { sql: string; parameters: readonly unknown[] }
  | { batch: string }
  | { close: true };

/** An error as it crosses between the threads: its SQLite code kept, to tell a duplicate from an outage. */
interface ErrorReply {
  message: string;
  code?: string | undefined;
}

interface WriterReply {
  rows?: unknown[];
  changes?: number;
  lastInsertRowid?: number | bigint;
  outcomes?: Array<{ ok: true; value: unknown } | { ok: false; error: ErrorReply }>;
  /** The seq of the last change a batch appended to the change log, if any. */
  lastChange?: number;
  error?: ErrorReply;
}

interface Waiting {
  resolve: (reply: WriterReply) => void;
  reject: (error: Error) => void;
}

function errorReply(error: unknown): ErrorReply {
  const { message, code } = error as { message?: unknown; code?: unknown };
  return { message: String(message), code: typeof code === 'string' ? code : undefined };
}

function rebuildError(error: ErrorReply): Error {
  return error.code?.startsWith('SQLITE_') ? new SQLite.SqliteError(error.message, error.code) : new Error(error.message);
}

/**
 * The writer thread and its one connection. One user at a time holds it
 * (`acquire`): a Kysely query or transaction, or the sending of a batch; the
 * thread answers messages in the order sent.
 */
export class WriterThread {
  private readonly worker: Worker;
  private readonly waiting: Waiting[] = [];
  private readonly onWrite: (() => void) | undefined;
  private failure: Error | undefined;
  private readonly exited: Promise<void>;
  private lock: Promise<void> = Promise.resolve();

  constructor(options: WriterThreadOptions) {
    this.onWrite = options.onWrite;
    // Beside the bundled server: dist/bin/sqlite-writer.js, this module built alone (scripts/bundle.mjs).
    this.worker = startModuleThread(import.meta.url, 'sqlite-writer.js', WRITER_ROLE, { file: options.file, pragmas: options.pragmas, changeLog: options.changeLog });
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
   * Commits a batch of asset writes in the thread, as one transaction
   * (../write-batch.ts). The connection is held only to send it: the thread
   * runs it whole, in its turn, so the next one may be sent before this one
   * is answered.
   */
  async commit(items: readonly BatchItem[]): Promise<CommittedBatch> {
    const release = await this.acquire();
    let reply: Promise<WriterReply>;
    try {
      // As JSON: a batch of assets is many small objects, which JSON passes faster than structured cloning.
      reply = this.send({ batch: JSON.stringify(items) });
    } finally {
      release();
    }
    const { outcomes, lastChange } = await reply;
    return { outcomes: (outcomes ?? []).map((o) => (o.ok ? o : { ok: false, error: rebuildError(o.error) })), lastChange };
  }

  private async send(request: WriterRequest): Promise<WriterReply> {
    if (this.failure) throw this.failure;
    const reply = await new Promise<WriterReply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.ref();
      this.worker.postMessage(request);
    });
    if (this.waiting.length === 0) this.worker.unref();
    if (reply.outcomes !== undefined || (reply.changes ?? 0) > 0) this.onWrite?.();
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

/**
 * The thread's end: owns the store's write connection and answers each
 * message, in the order received, with rows, a change count, a batch's
 * outcomes, or an error with its SQLite code.
 */
function serve(port: MessagePort, { file, pragmas, changeLog }: ThreadData): void {
  const conn = new SQLite(file);
  for (const pragma of pragmas) conn.pragma(pragma);
  const statements = withStatementCache(conn);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });

  async function answer(request: Exclude<WriterRequest, { close: true }>): Promise<WriterReply> {
    if ('batch' in request) {
      const { outcomes, lastChange } = await commitBatch(db, sqliteDialect, JSON.parse(request.batch) as BatchItem[], changeLog);
      return { outcomes: outcomes.map((o) => (o.ok ? o : { ok: false, error: errorReply(o.error) })), lastChange };
    }
    const statement = statements.prepare(request.sql);
    if (statement.reader) return { rows: statement.all(request.parameters) as unknown[] };
    const { changes, lastInsertRowid } = statement.run(request.parameters);
    return { changes: Number(changes), lastInsertRowid };
  }

  async function handle(request: WriterRequest): Promise<void> {
    if ('close' in request) {
      await db.destroy();
      port.close();
      return;
    }
    try {
      port.postMessage(await answer(request));
    } catch (error) {
      port.postMessage({ error: errorReply(error) } satisfies WriterReply);
    }
  }

  // One message at a time, in order: a batch awaits its statements before the next message starts.
  let turn = Promise.resolve();
  port.on('message', (request: WriterRequest) => {
    turn = turn.then(() => handle(request));
  });
}

const thread = threadPort<ThreadData>(WRITER_ROLE);
if (thread) serve(thread.port, thread.data);
