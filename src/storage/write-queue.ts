import { sql, type Kysely, type Transaction } from 'kysely';
import type { DialectAdapter } from './dialects/adapter.js';
import type { WriterThread } from './dialects/sqlite-writer-thread.js';
import { PendingChanges } from './pending-changes.js';
import { inSession } from './prepared-query.js';
import type { Database } from './schema.js';
import { runOperation, type OperationArgs, type OperationResult, type WriteOperation } from './write-operations.js';

/**
 * Operations the writer thread may hold at once: one running and one waiting,
 * so that it never waits for this thread between two of them.
 */
const THREAD_OPERATIONS_IN_FLIGHT = 2;

/** A write, run inside a batch's transaction; the asset writes among them add their changes to `changes`. */
export type WriteJob<T> = (trx: Transaction<Database>, changes: PendingChanges) => Promise<T>;

interface Pending {
  /** A job, run in a batch of jobs on the write connection; or else: */
  job?: WriteJob<unknown>;
  /** An operation for the writer thread, which runs it whole, as a transaction of its own. */
  operation?: { name: WriteOperation; args: () => unknown[] };
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: every write that arrives while the previous batch commits (or in
 * the same event-loop turn) joins one transaction. Each job runs under its own
 * savepoint, so a job that fails (a duplicate id, a quota) rolls back alone and
 * rejects only its own promise; the others commit. A promise resolves only after
 * its batch has committed, so whatever was acknowledged is durable. The
 * batch's changes are appended to the change log just before its commit, in
 * one statement; once committed, the change log hears of its last seq.
 */
export class WriteQueue {
  private pending: Pending[] = [];
  private running = false;
  private scheduled = false;
  /** Operations sent to the writer thread and not yet answered. */
  private inThread = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly adapter: DialectAdapter,
    private readonly thread: WriterThread | undefined,
    /** Whether asset writes record their changes (CHANGE_LOG). */
    private readonly changeLog: boolean,
    /** Told the last seq of the change log after each commit that appended to it. */
    private readonly onChangesCommitted: (seq: number) => void,
    private readonly maxBatch = 512,
  ) {}

  run<T>(job: WriteJob<T>): Promise<T> {
    return this.enqueue({ job: job as WriteJob<unknown> });
  }

  /**
   * Runs a named write (./write-operations.ts) in its turn. Its arguments are
   * taken only when it runs, so that a caller can keep adding to them while
   * earlier writes commit. With a writer thread it runs there, whole, as a
   * transaction of its own; otherwise it is a job like any other.
   */
  runOperation<K extends WriteOperation>(operation: K, args: () => OperationArgs<K>): Promise<OperationResult<K>> {
    if (!this.thread) return this.run((trx, changes) => runOperation(trx, this.adapter, changes, operation, args()));
    return this.enqueue({ operation: { name: operation, args } });
  }

  private enqueue<T>(work: Pick<Pending, 'job' | 'operation'>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ ...work, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Resolves once everything queued so far has been committed or rejected. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.running || this.inThread > 0) await new Promise((r) => setImmediate(r));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Starts whatever may start now: operations for the thread, up to its limit, or a batch of jobs. */
  private pump(): void {
    while (this.pending.length > 0 && !this.running) {
      const first = this.pending[0] as Pending;
      if (first.operation && this.thread) {
        if (this.inThread >= THREAD_OPERATIONS_IN_FLIGHT) return;
        this.pending.shift();
        this.sendToThread(this.thread, first, first.operation);
      } else {
        // A batch of jobs runs alone: after the thread's operations, before the next ones.
        if (this.inThread > 0) return;
        void this.flush();
      }
    }
  }

  /**
   * Sends an operation to the writer thread without waiting for the one before
   * to commit: the thread runs them in order, each a transaction of its own,
   * and this thread meanwhile reads the requests that make the next one.
   */
  private sendToThread(thread: WriterThread, item: Pending, operation: NonNullable<Pending['operation']>): void {
    this.inThread++;
    const settled = (settle: () => void) => {
      this.inThread--;
      // The next operation goes first: the thread works on it while the answers of this one are written.
      this.pump();
      settle();
    };
    let args: unknown[];
    try {
      args = operation.args();
    } catch (error) {
      settled(() => item.reject(error));
      return;
    }
    thread.transaction(this.adapter.beginSql, this.changeLog, operation.name, args as never).then(
      ({ value, lastChange }) => settled(() => {
        if (lastChange !== undefined) this.onChangesCommitted(lastChange);
        item.resolve(value);
      }),
      (error: unknown) => settled(() => item.reject(error)),
    );
  }

  private async flush(): Promise<void> {
    this.running = true;
    // Jobs up to the next operation, which runs in the thread after them.
    const end = this.pending.findIndex((p) => p.job === undefined);
    const batch = this.pending.splice(0, Math.min(end < 0 ? this.pending.length : end, this.maxBatch)) as Array<Pending & { job: WriteJob<unknown> }>;
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    const changes = new PendingChanges(this.changeLog);
    let lastChange: number | undefined;
    try {
      await this.db.connection().execute(async (conn) => {
        await sql.raw(this.adapter.beginSql).execute(conn);
        try {
          const trx = conn as unknown as Transaction<Database>;
          if (batch.length === 1) {
            // A lone write needs no savepoint: its failure rolls back the whole (tiny) transaction.
            try {
              outcomes.push({ ok: true, value: await (batch[0] as Pending & { job: WriteJob<unknown> }).job(trx, changes) });
            } catch (error) {
              outcomes.push({ ok: false, value: error });
            }
          } else {
            for (const item of batch) {
              const mark = changes.mark;
              await sql`savepoint w`.execute(conn);
              try {
                const value = await item.job(trx, changes);
                await sql`release savepoint w`.execute(conn);
                outcomes.push({ ok: true, value });
              } catch (error) {
                changes.rollbackTo(mark);
                await sql`rollback to savepoint w`.execute(conn);
                await sql`release savepoint w`.execute(conn);
                outcomes.push({ ok: false, value: error });
              }
            }
          }
          if (batch.length === 1 && outcomes[0]?.ok === false) await sql`rollback`.execute(conn);
          else {
            const appended = changes.take();
            if (appended.length > 0) lastChange = await inSession(conn, this.adapter.name, (session) => this.adapter.appendChanges(session, appended));
            await sql`commit`.execute(conn);
          }
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => {});
          throw error;
        }
      });
      if (lastChange !== undefined) this.onChangesCommitted(lastChange);
      batch.forEach((item, i) => {
        const outcome = outcomes[i] as { ok: boolean; value: unknown };
        if (outcome.ok) item.resolve(outcome.value);
        else item.reject(outcome.value);
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
    } finally {
      this.running = false;
      if (this.pending.length > 0) this.schedule();
    }
  }
}
