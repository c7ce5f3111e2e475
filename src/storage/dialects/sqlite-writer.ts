import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import { PendingChanges } from '../pending-changes.js';
import { inSession } from '../prepared-query.js';
import { runOperation } from '../write-operations.js';
import { sqliteAdapter } from './sqlite.js';
import type { WriterReply, WriterRequest } from './sqlite-writer-thread.js';
import { withStatementCache } from './statement-cache.js';

/**
 * The writer thread (./sqlite-writer-thread.ts): owns the store's write
 * connection and answers each message, in the order received, with rows, a
 * change count, an operation's result, or an error with its SQLite code.
 */

const port = parentPort;
if (!port) throw new Error('sqlite-writer runs as a worker thread of the store');
const { file, pragmas } = workerData as { file: string; pragmas: string[] };

const conn = new SQLite(file);
for (const pragma of pragmas) conn.pragma(pragma);
const statements = withStatementCache(conn);
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
const run = (text: string) => statements.prepare(text).run([]);

async function answer(request: Exclude<WriterRequest, { close: true }>): Promise<WriterReply> {
  if ('transaction' in request) {
    const { begin, changeLog, operation, args } = request.transaction;
    run(begin);
    try {
      const changes = new PendingChanges(changeLog);
      const value = await runOperation(db as Transaction<Database>, sqliteAdapter, changes, operation, JSON.parse(args) as never);
      const appended = changes.take();
      const lastChange = appended.length > 0 ? await inSession(db, 'sqlite', (session) => sqliteAdapter.appendChanges(session, appended)) : undefined;
      run('commit');
      return { value, lastChange };
    } catch (error) {
      if (conn.inTransaction) run('rollback');
      throw error;
    }
  }
  const statement = statements.prepare(request.sql);
  if (statement.reader) return { rows: statement.all(request.parameters) as unknown[] };
  const { changes, lastInsertRowid } = statement.run(request.parameters);
  return { changes: Number(changes), lastInsertRowid };
}

async function handle(request: WriterRequest): Promise<void> {
  if ('close' in request) {
    await db.destroy();
    port?.close();
    return;
  }
  try {
    port?.postMessage(await answer(request));
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown };
    port?.postMessage({ error: { message: String(message), code: typeof code === 'string' ? code : undefined } } satisfies WriterReply);
  }
}

// One message at a time, in order: an operation awaits its statements before the next message starts.
let turn = Promise.resolve();
port.on('message', (request: WriterRequest) => {
  turn = turn.then(() => handle(request));
});
