import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../ports.js';
import type { Database } from '../schema.js';
import { beginBatch, commitBatch, commitBegun, type BatchCommitter, type BatchItem, type CommittedBatch } from '../write-batch.js';

/**
 * How long a transaction begun ahead waits for its batch before it ends
 * (rolled back, having written nothing): long enough for the next batch of a
 * steady load, and short enough that a server between bursts holds no
 * transaction open, and that a connection lost meanwhile (the database
 * restarting) is met by at most the batch that follows at once.
 */
export const AHEAD_MS = 100;

/** A transaction begun ahead on a connection of its own, waiting for the batch it will commit. */
interface Ahead {
  /** Whether its begin is under way, done, or failed (or no connection was to be had). */
  readonly state: () => 'beginning' | 'begun' | 'failed';
  /** Gives it its batch: the batch's outcome. */
  hand(items: readonly BatchItem[]): Promise<CommittedBatch>;
  /** Ends it, writing nothing. */
  end(): Promise<void>;
}

/**
 * PostgreSQL's committer: one batch at a time (every batch of a site updates
 * the site's counter rows, which a second batch would only wait for), each in
 * a transaction begun while the batch before it commits. A begin is a round
 * trip whose answer waits for the event loop, busy answering the batch before
 * and reading the requests that follow: begun ahead, it is off the batch's
 * way. A batch handed a transaction still beginning fails as a batch whose
 * own begin failed would; one begun ahead that failed is passed by.
 */
export function postgresCommitter(db: Kysely<Database>, dialect: Dialect, changeLog: boolean, aheadMs = AHEAD_MS): BatchCommitter {
  let ahead: Ahead | undefined;
  let closed = false;

  const beginAhead = (): Ahead => {
    let state: 'beginning' | 'begun' | 'failed' = 'beginning';
    let deliver!: (items: readonly BatchItem[] | undefined) => void;
    const handed = new Promise<readonly BatchItem[] | undefined>((resolve) => {
      deliver = resolve;
    });
    const outcome = db.connection().execute(async (conn) => {
      const transaction = await beginBatch(conn, dialect);
      state = 'begun';
      const items = await handed;
      if (items === undefined) {
        await sql`rollback`.execute(conn).catch(() => {});
        return undefined;
      }
      return commitBegun(conn, dialect, items, changeLog, transaction, db);
    });
    // Seen here, so that one never handed a batch fails unseen; a batch handed it sees the error too.
    outcome.catch(() => {
      state = 'failed';
    });
    const timer = setTimeout(() => {
      if (ahead === self) ahead = undefined;
      void self.end();
    }, aheadMs);
    timer.unref();
    const self: Ahead = {
      state: () => state,
      hand(items) {
        clearTimeout(timer);
        deliver(items);
        // Handed a batch, it commits it: its outcome is that batch's.
        return outcome as Promise<CommittedBatch>;
      },
      async end() {
        clearTimeout(timer);
        deliver(undefined);
        await outcome.catch(() => {});
      },
    };
    return self;
  };

  return {
    async commit(items: readonly BatchItem[]): Promise<CommittedBatch> {
      const taken = ahead;
      // The next batch's transaction begins while this one commits.
      ahead = closed ? undefined : beginAhead();
      if (taken && taken.state() !== 'failed') return taken.hand(items);
      return db.connection().execute((conn) => commitBatch(conn, dialect, items, changeLog, db));
    },
    batchesInFlight: 1,
    async close() {
      closed = true;
      const taken = ahead;
      ahead = undefined;
      await taken?.end();
    },
  };
}
