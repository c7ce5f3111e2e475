import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

export type WriteJob<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  job: WriteJob<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: every write that arrives while the previous batch commits (or in
 * the same event-loop turn) joins one transaction. Each job runs under its own
 * savepoint, so a job that fails (a duplicate id, a quota) rolls back alone and
 * rejects only its own promise; the others commit. A promise resolves only after
 * its batch has committed, so whatever was acknowledged is durable.
 */
export class WriteQueue {
  private pending: Pending[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly beginSql: string,
    private readonly maxBatch = 512,
  ) {}

  run<T>(job: WriteJob<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ job: job as WriteJob<unknown>, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Resolves once everything queued so far has been committed or rejected. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.running) await new Promise((r) => setImmediate(r));
  }

  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running || this.pending.length === 0) return;
    this.running = true;
    const batch = this.pending.splice(0, this.maxBatch);
    const outcomes: Array<{ ok: boolean; value: unknown }> = [];
    try {
      await this.db.connection().execute(async (conn) => {
        await sql.raw(this.beginSql).execute(conn);
        try {
          const trx = conn as unknown as Transaction<Database>;
          if (batch.length === 1) {
            // A lone write needs no savepoint: its failure rolls back the whole (tiny) transaction.
            try {
              outcomes.push({ ok: true, value: await (batch[0] as Pending).job(trx) });
            } catch (error) {
              outcomes.push({ ok: false, value: error });
            }
          } else {
            for (const item of batch) {
              await sql`savepoint w`.execute(conn);
              try {
                const value = await item.job(trx);
                await sql`release savepoint w`.execute(conn);
                outcomes.push({ ok: true, value });
              } catch (error) {
                await sql`rollback to savepoint w`.execute(conn);
                await sql`release savepoint w`.execute(conn);
                outcomes.push({ ok: false, value: error });
              }
            }
          }
          if (batch.length === 1 && outcomes[0]?.ok === false) await sql`rollback`.execute(conn);
          else await sql`commit`.execute(conn);
        } catch (error) {
          await sql`rollback`.execute(conn).catch(() => {});
          throw error;
        }
      });
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
