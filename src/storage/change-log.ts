import { setTimeout as delay } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { changesPageSize, type Change } from '../domain/changes.js';
import type { Database } from './schema.js';
import type { WritePipeline } from './write-pipeline.js';

/** While a reader waits, how often the log is looked at besides what it is told (another SQLite process, a lost notification). */
const LOOK_EVERY_MS = 1000;
/** Rows one pruning statement deletes at most: each is a short write of its own, between the others. */
const PRUNE_CHUNK = 2000;

interface Waiter {
  after: number;
  wake: (changed: boolean) => void;
}

/** A store's hearing of other processes' changes, running until closed. */
export interface ChangeListener {
  close(): Promise<void>;
}

/** How a store tells other processes of the changes this one committed (PostgreSQL's notifications); none on SQLite. */
export interface ChangeAnnouncer {
  announce(seq: number): void;
  /** Resolves once what was announced has been sent. */
  close(): Promise<void>;
}

/** How a store hears of changes other processes commit (PostgreSQL's notifications); none on SQLite. */
export type ListenForChanges = (onSeq: (seq: number) => void, onGap: () => void) => ChangeListener;

/**
 * The change log as its readers see it: the changes after a seq, in order,
 * a page at a time, and a cheap wait for the next ones. It learns of commits
 * from this process's write pipeline at once, and of other processes' from
 * the store (PostgreSQL's notifications, one per committed batch at most,
 * and a look of its own whenever its listening connection is made); while a
 * reader waits it also looks at the log once a second, which covers what no
 * one told it (another SQLite process), so that a wait costs no statement.
 */
export class ChangeLog {
  /** The highest seq known to be committed. */
  private known = 0;
  private readonly waiters = new Set<Waiter>();
  private listener: ChangeListener | undefined;
  private looking: Promise<number> | undefined;
  private looker: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    private readonly read: Kysely<Database>,
    private readonly writes: WritePipeline,
    private readonly listen: ListenForChanges | undefined,
  ) {}

  /** Tells the log that changes up to `seq` have committed. */
  committed(seq: number): void {
    if (seq <= this.known) return;
    this.known = seq;
    for (const waiter of this.waiters) if (waiter.after < seq) waiter.wake(true);
  }

  /** The seq of the last committed change (0: none yet). */
  latest(): Promise<number> {
    this.looking ??= this.read.selectFrom('changes').select((eb) => eb.fn.max('seq').as('last')).executeTakeFirst()
      .then((row) => {
        const last = Number(row?.last ?? 0);
        this.committed(last);
        return last;
      })
      .finally(() => {
        this.looking = undefined;
      });
    return this.looking;
  }

  /** The seq of the oldest change still kept (undefined: the log is empty); older ones were pruned. */
  async oldest(): Promise<number | undefined> {
    const row = await this.read.selectFrom('changes').select((eb) => eb.fn.min('seq').as('first')).executeTakeFirst();
    return row?.first === null || row?.first === undefined ? undefined : Number(row.first);
  }

  /** The committed changes after `seq`, in order; at most `limit` (and never more than a page). */
  async after(seq: number, limit?: number): Promise<Change[]> {
    const rows = await this.read.selectFrom('changes').selectAll()
      .where('seq', '>', seq).orderBy('seq').limit(changesPageSize(limit)).execute();
    return rows.map((r) => ({
      seq: Number(r.seq), assetId: r.asset_id, assetType: r.asset_type, site: r.site, kind: r.kind,
      attributes: JSON.parse(r.attrs) as Change['attributes'], at: Number(r.committed_at),
    }));
  }

  /**
   * Resolves true once a change after `seq` has committed (by any process on
   * the store), false when `timeoutMs` passes first or the log closes.
   */
  async waitAfter(seq: number, timeoutMs: number): Promise<boolean> {
    if (this.closed) return false;
    if (this.known > seq) return true;
    this.startListening();
    const waiting = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => waiter.wake(false), timeoutMs);
      const waiter: Waiter = {
        after: seq,
        wake: (changed) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          if (this.waiters.size === 0) this.stopLooking();
          resolve(changed);
        },
      };
      this.waiters.add(waiter);
    });
    this.startLooking();
    return waiting;
  }

  /**
   * Deletes the changes committed before `before` (epoch ms), oldest first, in
   * short writes of their own; how many it deleted. Seqs and commit times grow
   * together, so the walk stops at the first change young enough to keep.
   * Changes after `keepAfter` (a reader's cursor not yet past them) are kept whatever their age.
   */
  async prune(before: number, keepAfter?: number): Promise<number> {
    const young = await this.read.selectFrom('changes').select('seq').where('committed_at', '>=', before).orderBy('seq').limit(1).executeTakeFirst();
    const end = Math.min(young ? Number(young.seq) : (await this.latest()) + 1, keepAfter === undefined ? Infinity : keepAfter + 1);
    let deleted = 0;
    for (;;) {
      const n = await this.writes.run(async (trx) => {
        const result = await trx.deleteFrom('changes')
          .where('seq', 'in', (eb) => eb.selectFrom('changes').select('seq').where('seq', '<', end).orderBy('seq').limit(PRUNE_CHUNK))
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      });
      deleted += n;
      if (n < PRUNE_CHUNK || this.closed) return deleted;
      // The writes that arrived meanwhile go first.
      await delay(0);
    }
  }

  private startListening(): void {
    if (this.listener || !this.listen) return;
    this.listener = this.listen((seq) => this.committed(seq), () => void this.latest().catch(() => {}));
  }

  private startLooking(): void {
    this.looker ??= setInterval(() => void this.latest().catch(() => {}), LOOK_EVERY_MS).unref();
  }

  private stopLooking(): void {
    if (this.looker) clearInterval(this.looker);
    this.looker = undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of [...this.waiters]) waiter.wake(false);
    this.stopLooking();
    await this.listener?.close();
    this.listener = undefined;
  }
}
