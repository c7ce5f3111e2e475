import { sql, type Kysely, type Transaction } from 'kysely';
import type { AssetWrite } from '../domain/asset-writes.js';
import { PendingChanges } from './pending-changes.js';
import { inSession } from './prepared-query.js';
import type { Dialect } from './ports.js';
import type { Database } from './schema.js';
import { outcomeUnknown } from './store-timeout.js';

/**
 * A batch of writes committed as one transaction: what the write pipeline
 * (./write-pipeline.ts) hands to a store, and how the store runs it.
 */

/** Any other write (identity, sites, keys): statements on the transaction, run in their turn. */
export type WriteJob<T> = (trx: Transaction<Database>) => Promise<T>;

export type BatchItem = AssetWrite | { kind: 'job'; job: WriteJob<unknown> };

/** What one item came to: its value, or its own error. */
export type ItemOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A committed batch: each item's outcome, in order, and the seq of the last change it appended to the change log. */
export interface CommittedBatch {
  outcomes: ItemOutcome[];
  lastChange: number | undefined;
}

/** How a store commits the batches of the pipeline. */
export interface BatchCommitter {
  /**
   * Commits the items as one transaction (commitBatch) and gives each
   * item's outcome, in order; rejects when the transaction as a whole failed.
   */
  commit(items: readonly BatchItem[]): Promise<CommittedBatch>;
  /**
   * Batches that may be under way at once. Above one, the store runs batches
   * of asset writes in order elsewhere (SQLite's writer thread), and a batch
   * holding a job runs alone, with no other under way.
   */
  readonly batchesInFlight: number;
  /** Ends what the committer holds between batches (once the pipeline is drained). */
  close?(): Promise<void>;
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

/**
 * Runs one segment; its outcomes, one per item. Its changes join `changes`
 * (taken back if it throws), which, one per transaction, also tells the
 * dialect which transaction its statements run in (Session.transaction).
 */
async function runSegment(db: Kysely<Database>, dialect: Dialect, items: readonly BatchItem[], changes: PendingChanges): Promise<ItemOutcome[]> {
  const first = items[0] as BatchItem;
  if (first.kind === 'job') return [{ ok: true, value: await first.job(db as Transaction<Database>) }];
  const writes = dialect.assetWrites;
  const mark = changes.mark;
  const values = await inSession<unknown[]>(db, dialect, (session) => {
    if (first.kind === 'create') return writes.create(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'create' }>).input), changes);
    if (first.kind === 'update') return writes.update(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'update' }>).input), changes);
    return writes.delete(session, items.map((i) => (i as Extract<AssetWrite, { kind: 'delete' }>).input), changes);
  }, changes).catch((error: unknown) => {
    changes.rollbackTo(mark);
    throw error;
  });
  return values.map((value) => ({ ok: true, value }));
}

const failedAll = (count: number, error: unknown): ItemOutcome[] => Array.from({ length: count }, () => ({ ok: false, error }));

/**
 * Commits the batch on `db` (a connection held for it) as one transaction,
 * each segment under its own savepoint, so that one that fails rolls back
 * alone and fails only its own items. A batch of one segment needs no
 * savepoint: its failure rolls back the whole transaction. The changes of
 * the asset writes that stand are appended to the change log in one
 * statement just before the commit (with `changeLog` off, none). Throws when
 * the transaction itself failed (begin, commit): then nothing of it was
 * written. A commit that got no answer is asked about on `elsewhere` (fateOf).
 */
export async function commitBatch(
  db: Kysely<Database>, dialect: Dialect, items: readonly BatchItem[], changeLog: boolean, elsewhere?: Kysely<Database>,
): Promise<CommittedBatch> {
  return commitBegun(db, dialect, items, changeLog, await beginBatch(db, dialect), elsewhere);
}

/** A transaction begun on a connection for a batch: the id it answered with (undefined where the store gives none). */
export interface BegunBatch {
  txid: string | undefined;
}

/** Begins the transaction of a batch on `db` (a connection held for it). */
export async function beginBatch(db: Kysely<Database>, dialect: Dialect): Promise<BegunBatch> {
  const begun = await sql.raw<{ txid?: string }>(dialect.beginSql).execute(db);
  return { txid: begun.rows[0]?.txid };
}

/** commitBatch, in a transaction already begun on `db` (beginBatch). */
export async function commitBegun(
  db: Kysely<Database>, dialect: Dialect, items: readonly BatchItem[], changeLog: boolean, { txid }: BegunBatch, elsewhere?: Kysely<Database>,
): Promise<CommittedBatch> {
  const segments = segmentsOf(items);
  const outcomes: ItemOutcome[] = [];
  const changes = new PendingChanges(changeLog);
  try {
    if (segments.length === 1) {
      try {
        outcomes.push(...(await runSegment(db, dialect, items, changes)));
      } catch (error) {
        await sql`rollback`.execute(db);
        return { outcomes: failedAll(items.length, error), lastChange: undefined };
      }
    } else {
      for (const { start, end } of segments) {
        await sql`savepoint w`.execute(db);
        try {
          outcomes.push(...(await runSegment(db, dialect, items.slice(start, end), changes)));
          await sql`release savepoint w`.execute(db);
        } catch (error) {
          await sql`rollback to savepoint w`.execute(db);
          await sql`release savepoint w`.execute(db);
          outcomes.push(...failedAll(end - start, error));
        }
      }
    }
    const appended = changes.take();
    const [last, commit] = await inSession(db, dialect, (session) => {
      const end = dialect.changes.appendAndCommit(session, appended);
      return Promise.allSettled([end.appended, end.committed]);
    }, changes);
    const lastChange = last.status === 'fulfilled' ? last.value : undefined;
    if (commit.status === 'rejected') {
      // A commit that got no answer may have committed, and the append before it too, its answer lost with the
      // commit's (readers then learn of those changes with the next commit): the store is asked, and a batch
      // that did is what it says.
      if ((await fateOf(dialect, elsewhere, txid, commit.reason)) === 'committed') return { outcomes, lastChange };
      throw commit.reason;
    }
    // The commit answered, but the append before it failed: the transaction was aborted, and the commit ended it with nothing written.
    if (last.status === 'rejected') throw last.reason;
    return { outcomes, lastChange };
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => {});
    throw error;
  }
}

/** Times the fate of a commit whose answer was lost is asked before it is reported unknown. */
const FATE_ATTEMPTS = 3;

/**
 * Whether a transaction whose commit failed committed after all. A store that cannot be asked
 * (SQLite, in process, whose commit always answers) or a refusal from a store that answered:
 * it did not. A commit lost on the way to a store that can be asked: its fate, asked on another
 * connection; when that goes unanswered too, the outcome is unknown, and the error says so
 * (./store-timeout.ts, docs/decisions.md).
 */
async function fateOf(dialect: Dialect, elsewhere: Kysely<Database> | undefined, txid: string | undefined, error: unknown): Promise<string> {
  if (!dialect.transactionFate || !elsewhere || txid === undefined || dialect.classifyError(error) !== 'unavailable') return 'aborted';
  const ask = dialect.transactionFate.bind(dialect);
  // The question needs a connection of its own, which a loaded machine may not give within one bound: it is asked a few times.
  for (let attempt = 0; attempt < FATE_ATTEMPTS; attempt++) {
    const fate = await ask(elsewhere, txid).catch(() => 'unknown' as const);
    if (fate !== 'unknown') return fate;
  }
  throw outcomeUnknown();
}

/** Commits each batch on a connection of `db` taken for it, in this thread (asking another one of `db` after a commit lost on the way). */
export function committerOn(db: Kysely<Database>, dialect: Dialect, changeLog: boolean): BatchCommitter {
  return {
    commit: (items) => db.connection().execute((conn) => commitBatch(conn, dialect, items, changeLog, db)),
    batchesInFlight: 1,
  };
}
