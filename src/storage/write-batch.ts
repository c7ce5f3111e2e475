import { sql, type Kysely, type Transaction } from 'kysely';
import type { AssetWrite } from '../domain/asset-writes.js';
import { inSession } from './prepared-query.js';
import type { Dialect } from './ports.js';
import type { Database } from './schema.js';

/**
 * A batch of writes committed as one transaction: what the write pipeline
 * (./write-pipeline.ts) hands to a store, and how the store runs it.
 */

/** Any other write (identity, sites, keys): statements on the transaction, run in their turn. */
export type WriteJob<T> = (trx: Transaction<Database>) => Promise<T>;

export type BatchItem = AssetWrite | { kind: 'job'; job: WriteJob<unknown> };

/** What one item came to: its value, or its own error. */
export type ItemOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** How a store commits the batches of the pipeline. */
export interface BatchCommitter {
  /**
   * Commits the items as one transaction (commitBatch) and gives each
   * item's outcome, in order; rejects when the transaction as a whole failed.
   */
  commit(items: readonly BatchItem[]): Promise<ItemOutcome[]>;
  /**
   * Batches that may be under way at once. Above one, the store runs batches
   * of asset writes in order elsewhere (SQLite's writer thread), and a batch
   * holding a job runs alone, with no other under way.
   */
  readonly batchesInFlight: number;
}

/**
 * Consecutive asset writes of one kind are written by one call: they fail
 * only before writing anything (unknown asset, duplicate id, full quota),
 * which the call reports per item, so they share a savepoint. A job is a
 * segment of its own.
 */
function segmentsOf(items: readonly BatchItem[]): Array<{ start: number; end: number }> {
  const segments: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < items.length; i++) {
    const last = segments[segments.length - 1];
    const kind = (items[i] as BatchItem).kind;
    if (last && kind !== 'job' && (items[last.start] as BatchItem).kind === kind) last.end = i + 1;
    else segments.push({ start: i, end: i + 1 });
  }
  return segments;
}

/** Runs one segment; its outcomes, one per item. */
async function runSegment(db: Kysely<Database>, dialect: Dialect, items: readonly BatchItem[]): Promise<ItemOutcome[]> {
  const first = items[0] as BatchItem;
  if (first.kind === 'job') return [{ ok: true, value: await first.job(db as Transaction<Database>) }];
  const writes = dialect.assetWrites;
  const values = await inSession<unknown[]>(db, dialect, (session) => {
    if (first.kind === 'create') return writes.create(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'create' }>).input));
    if (first.kind === 'update') return writes.update(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'update' }>).input));
    return writes.delete(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'delete' }>).input));
  });
  return values.map((value) => ({ ok: true, value }));
}

const failedAll = (count: number, error: unknown): ItemOutcome[] => Array.from({ length: count }, () => ({ ok: false, error }));

/**
 * Commits the batch on `db` (a connection held for it) as one transaction,
 * each segment under its own savepoint, so that one that fails rolls back
 * alone and fails only its own items. A batch of one segment needs no
 * savepoint: its failure rolls back the whole transaction. Throws when the
 * transaction itself failed (begin, commit): then nothing of it was written.
 */
export async function commitBatch(db: Kysely<Database>, dialect: Dialect, items: readonly BatchItem[]): Promise<ItemOutcome[]> {
  const segments = segmentsOf(items);
  const outcomes: ItemOutcome[] = [];
  await sql.raw(dialect.beginSql).execute(db);
  try {
    if (segments.length === 1) {
      try {
        outcomes.push(...(await runSegment(db, dialect, items)));
      } catch (error) {
        await sql`rollback`.execute(db);
        return failedAll(items.length, error);
      }
    } else {
      for (const { start, end } of segments) {
        await sql`savepoint w`.execute(db);
        try {
          outcomes.push(...(await runSegment(db, dialect, items.slice(start, end))));
          await sql`release savepoint w`.execute(db);
        } catch (error) {
          await sql`rollback to savepoint w`.execute(db);
          await sql`release savepoint w`.execute(db);
          outcomes.push(...failedAll(end - start, error));
        }
      }
    }
    await sql`commit`.execute(db);
    return outcomes;
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => {});
    throw error;
  }
}

/** Commits each batch on a connection of `db` taken for it, in this thread. */
export function committerOn(db: Kysely<Database>, dialect: Dialect): BatchCommitter {
  return {
    commit: (items) => db.connection().execute((conn) => commitBatch(conn, dialect, items)),
    batchesInFlight: 1,
  };
}
