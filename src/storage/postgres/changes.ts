import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { ChangeRecord } from '../../domain/changes.js';
import type { ChangeAnnouncer, ChangeListener } from '../change-log.js';
import type { Database } from '../schema.js';
import type { ChangeWrites, TransactionEnd } from '../ports.js';
import { COMMIT, RawStatement, type Session } from '../prepared-query.js';

/** The channel on which every committed batch of changes is announced, with its last seq. */
export const CHANGES_CHANNEL = 'opencity_changes';

/**
 * The key of the transaction lock that orders the change log. Writers of
 * several processes commit concurrently, and an identity taken early may
 * commit late: a reader that had seen a higher seq would then miss it. Each
 * transaction takes this lock just before it numbers its changes and keeps
 * it until it commits, so numbers are taken in commit order; everything else
 * the transaction writes came before, so no other lock is waited for under it.
 */
const CHANGE_LOG_LOCK = 7_482_361_001;

/** The changes of a transaction in one statement: the lock, then the rows in order. */
const APPEND = new RawStatement<{ last: number | string | null }>(`
with ordered as (select pg_advisory_xact_lock(${CHANGE_LOG_LOCK}) as locked),
appended as (
  insert into changes (asset_id, asset_type, site, kind, attrs, committed_at)
  select c.asset_id, c.asset_type, c.site, c.kind, c.attrs, c.committed_at
  from ordered, unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int8[]) with ordinality
    as c(asset_id, asset_type, site, kind, attrs, committed_at, ord)
  order by c.ord
  returning seq
)
select max(seq) as last from appended`);

/** Appends the changes; the seq of the last one. */
async function append(session: Session, changes: readonly ChangeRecord[]): Promise<number> {
  const result = await APPEND.run(session, [
    changes.map((c) => c.assetId), changes.map((c) => c.assetType), changes.map((c) => c.site), changes.map((c) => c.kind),
    changes.map((c) => JSON.stringify(c.attributes)), changes.map((c) => c.at),
  ]);
  return Number(result.rows[0]?.last);
}

/**
 * The append and the commit sent together: the connection runs the commit as
 * soon as the append is done, without waiting for this process to read the
 * append's answer, which under load waits for the event loop (bench/RESULTS.md,
 * federation.design). A failed append leaves the transaction aborted, and the
 * commit then ends it with nothing written.
 */
function appendAndCommit(session: Session, changes: readonly ChangeRecord[]): TransactionEnd {
  // Each statement is queued on the connection as it is called: the append goes first.
  const appended = changes.length > 0 ? append(session, changes) : Promise.resolve(undefined);
  return { appended, committed: COMMIT.run(session, []) };
}

export const postgresChanges: ChangeWrites = { appendAndCommit };

/**
 * Tells every process listening on the database that changes up to a seq
 * have committed. A notification sent inside the writing transaction makes
 * its commit take a database-wide lock, which the update rate showed
 * (bench/RESULTS.md, changes); sent after the commit, on a connection of the
 * pool, it is off the write path. One is under way at a time: the batches
 * that commit meanwhile share the next one, which carries the last seq. A
 * notification lost (the store failed, the process ended) delays readers
 * until they look for themselves.
 */
export function changeAnnouncer(db: Kysely<Database>): ChangeAnnouncer {
  let latest: number | undefined;
  let sending: Promise<void> | undefined;
  const send = (): void => {
    if (latest === undefined) return;
    const seq = latest;
    latest = undefined;
    sending = sql`select pg_notify(${CHANGES_CHANNEL}, ${String(seq)})`.execute(db).then(() => {}, () => {}).finally(() => {
      sending = undefined;
      send();
    });
  };
  return {
    announce(seq) {
      latest = Math.max(latest ?? 0, seq);
      if (!sending) send();
    },
    async close() {
      while (sending) await sending;
    },
  };
}

/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1000;

/**
 * Listens, on a connection of its own, for the notification each committed
 * batch of changes sends, by any process on the database. A lost connection
 * is made again; `onGap` then runs, since notifications sent meanwhile are
 * lost and the reader must look for itself.
 */
export function listenForChanges(url: string, onSeq: (seq: number) => void, onGap: () => void): ChangeListener {
  let client: pg.Client | undefined;
  let closed = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const connect = async () => {
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    client = c;
    const lost = () => {
      c.removeAllListeners('notification');
      if (client === c) client = undefined;
      if (!closed && retry === undefined) retry = setTimeout(() => {
        retry = undefined;
        void connect();
      }, RECONNECT_MS).unref();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (message) => {
      const seq = Number(message.payload);
      if (Number.isSafeInteger(seq)) onSeq(seq);
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANGES_CHANNEL}`);
      if (closed) await c.end();
      else onGap();
    } catch {
      lost();
      await c.end().catch(() => {});
    }
  };
  void connect();
  return {
    async close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
