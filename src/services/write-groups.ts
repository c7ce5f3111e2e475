/** What one item of a group came to: a value, or its own error (which wrote nothing). */
export type ItemOutcome<O> = { ok: true; value: O } | { ok: false; error: Error };

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

/** Items per write job at most; the rest wait for the next one. */
const MAX_GROUP = 256;

/**
 * Writes a group: queues one write whose items are taken (`take`) only when
 * it runs, and gives each item's outcome, in order.
 */
export type GroupWrite<I, O> = (take: () => I[]) => Promise<Array<ItemOutcome<O>>>;

/**
 * Writes that fail only before they write anything (an unknown asset, a
 * duplicate id, a full quota) need no savepoint of their own: the requests
 * that arrive while the write queue is busy share one job, which reports each
 * item's outcome. One job per group instead of one per request saves the
 * queue's per-job savepoint on the hot path. A job that throws (the store
 * failed) fails its whole group, and writes nothing of it.
 *
 * A group is submitted as its first item arrives, and takes every item that
 * has arrived by the time the queue runs it, so grouping adds no wait.
 */
export class WriteGroups<I, O> {
  private pending: Array<Pending<I, O>> = [];
  private submitted = false;

  constructor(private readonly write: GroupWrite<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.submitted) this.submitGroup();
    });
  }

  private submitGroup(): void {
    this.submitted = true;
    let group: Array<Pending<I, O>> = [];
    let ran = false;
    this.write(() => {
      ran = true;
      group = this.pending.splice(0, MAX_GROUP);
      this.submitted = false;
      if (this.pending.length > 0) this.submitGroup();
      return group.map((p) => p.item);
    }).then((outcomes) => {
      group.forEach((p, i) => {
        const outcome = outcomes[i];
        if (outcome?.ok) p.resolve(outcome.value);
        else p.reject(outcome?.error ?? new Error('write group: no outcome for an item'));
      });
    }, (error: unknown) => {
      if (!ran) {
        // The queue failed before running the job: its items are the ones waiting now.
        this.submitted = false;
        group = this.pending.splice(0, MAX_GROUP);
      }
      for (const p of group) p.reject(error);
      if (this.pending.length > 0 && !this.submitted) this.submitGroup();
    });
  }
}
