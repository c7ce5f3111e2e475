import type { AssetWrite, AssetWriteResult } from '../domain/asset-writes.js';
import { notSentInTime } from './store-timeout.js';
import type { BatchCommitter, BatchItem, CommittedBatch, WriteJob } from './write-batch.js';

interface Pending {
  item: BatchItem;
  /** Writes submitted together (writeAll) share a group and are never split between two batches. */
  group?: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** performance.now() when it was queued. */
  queuedAt: number;
}

/** Items per batch at most; the rest wait for the next one. */
export const MAX_BATCH = 256;

/**
 * The one way writes reach a store. Group commit: every write that arrives
 * while the previous batch commits (or in the same event-loop turn) joins one
 * transaction, in the order the writes arrived; each request fails alone
 * (./write-batch.ts), and a promise resolves only after its batch has
 * committed, so whatever was acknowledged is durable. After each commit
 * that appended to the change log, the log hears of its last seq.
 */
export class WritePipeline {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Batches sent and not yet answered. */
  private inFlight = 0;
  /** A batch holding a job is under way, alone. */
  private exclusive = false;
  private groups = 0;
  /** Armed while writes wait for their turn behind a batch under way. */
  private expiry: NodeJS.Timeout | undefined;
  /** Writes submitted and not yet answered. */
  private inProgress = 0;
  /** The milliseconds writes spent in the pipeline, summed over every write, up to `summedAt`. */
  private summedMs = 0;
  private summedAt = performance.now();

  constructor(
    private readonly committer: BatchCommitter,
    /** Told the seq of the last change of each commit that appended to the change log. */
    private readonly onChangesCommitted: (seq: number) => void = () => {},
    private readonly maxBatch = MAX_BATCH,
    /**
     * The longest a write waits for its turn (STORE_TIMEOUT): one still queued then, behind a
     * batch the store does not answer, is refused, which is true since nothing of it was sent. A
     * write already sent waits for its batch's outcome, which the store bounds (./write-batch.ts).
     */
    private readonly queueTimeoutMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Writes an asset (create, update, delete) in its turn. */
  write<W extends AssetWrite>(write: W): Promise<AssetWriteResult<W>> {
    return this.enqueue(write) as Promise<AssetWriteResult<W>>;
  }

  /**
   * Writes assets submitted together (an NGSI batch): they go to the store in
   * one batch, whatever the batch size otherwise allowed, so in one commit;
   * each still has its own outcome, in order.
   */
  writeAll(writes: readonly AssetWrite[]): Promise<Array<PromiseSettledResult<AssetWriteResult<AssetWrite>>>> {
    const group = ++this.groups;
    const queuedAt = performance.now();
    this.counted(writes.length);
    const written = writes.map((item) => new Promise<unknown>((resolve, reject) => this.pending.push({ item, group, resolve, reject, queuedAt })));
    this.schedule();
    return Promise.allSettled(written) as Promise<Array<PromiseSettledResult<AssetWriteResult<AssetWrite>>>>;
  }

  /** Runs any other write on the store's write transaction, in its turn. */
  run<T>(job: WriteJob<T>): Promise<T> {
    return this.enqueue({ kind: 'job', job: job as WriteJob<unknown> }) as Promise<T>;
  }

  private enqueue(item: BatchItem): Promise<unknown> {
    this.counted(1);
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject, queuedAt: performance.now() });
      this.schedule();
    });
  }

  /**
   * The time writes have spent in the pipeline (queued or committing), summed
   * over every write since it began, in milliseconds: over an interval, its
   * growth divided by the interval is the mean number of writes under way,
   * a handful for a server with room, its whole concurrency for one whose
   * writes wait (../services/delivery-pace.ts).
   */
  writeTimeMs(): number {
    return this.summedMs + this.inProgress * (performance.now() - this.summedAt);
  }

  private counted(change: number): void {
    const now = performance.now();
    this.summedMs += this.inProgress * (now - this.summedAt);
    this.summedAt = now;
    this.inProgress += change;
  }

  /** Resolves once everything queued so far has been committed or rejected. */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.inFlight > 0) await new Promise((r) => setImmediate(r));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /** Sends whatever may go now: batches up to the store's limit, a batch holding a job alone. */
  private pump(): void {
    const limit = this.committer.batchesInFlight;
    while (this.pending.length > 0 && !this.exclusive) {
      const jobs = limit > 1 && (this.pending[0] as Pending).item.kind === 'job';
      if (jobs ? this.inFlight > 0 : this.inFlight >= limit) break;
      let end = 0;
      while (end < this.pending.length && end < this.maxBatch && (limit === 1 || ((this.pending[end] as Pending).item.kind === 'job') === jobs)) end++;
      const group = end > 0 ? (this.pending[end - 1] as Pending).group : undefined;
      while (group !== undefined && end < this.pending.length && (this.pending[end] as Pending).group === group) end++;
      this.send(this.pending.splice(0, end), jobs);
    }
    if (this.pending.length > 0) this.armExpiry();
  }

  /** Refuses, when their time is up, the writes still waiting for their turn (oldest first: the queue is in arrival order). */
  private armExpiry(): void {
    if (this.expiry !== undefined || !Number.isFinite(this.queueTimeoutMs)) return;
    const oldest = (this.pending[0] as Pending).queuedAt;
    this.expiry = setTimeout(() => {
      this.expiry = undefined;
      const now = performance.now();
      let expired = 0;
      while (expired < this.pending.length && now - (this.pending[expired] as Pending).queuedAt >= this.queueTimeoutMs) expired++;
      const refused = this.pending.splice(0, expired);
      this.counted(-refused.length);
      for (const p of refused) p.reject(notSentInTime());
      if (this.pending.length > 0) this.armExpiry();
    }, Math.max(0, oldest + this.queueTimeoutMs - performance.now()));
  }

  private send(batch: Pending[], exclusive: boolean): void {
    this.inFlight++;
    this.exclusive = exclusive;
    const settled = (settle: () => void) => {
      this.inFlight--;
      this.exclusive = false;
      // The next batch goes first: the store works on it while the answers of this one are written.
      this.pump();
      settle();
    };
    let committed: Promise<CommittedBatch>;
    try {
      committed = this.committer.commit(batch.map((p) => p.item));
    } catch (error) {
      committed = Promise.reject(error);
    }
    committed.then(
      ({ outcomes, lastChange }) => settled(() => {
        if (lastChange !== undefined) this.onChangesCommitted(lastChange);
        this.answer(batch, outcomes);
      }),
      (error: unknown) => settled(() => {
        this.counted(-batch.length);
        batch.forEach((p) => p.reject(error));
      }),
    );
  }

  private answer(batch: readonly Pending[], outcomes: CommittedBatch['outcomes']): void {
    this.counted(-batch.length);
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) p.resolve(outcome.value);
      else p.reject(outcome ? outcome.error : new Error('write pipeline: no outcome for a write'));
    });
  }
}
