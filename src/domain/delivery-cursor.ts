/**
 * How far a subscription's cursor may move while its notifications are
 * answered out of order. Changes are handed out in seq order; each is either
 * under way (its notification sent, not yet answered) or settled (answered
 * with a 2xx, or needing no notification). The cursor moves past a change only
 * once it and every change before it are settled, so a crash or a failure
 * never skips one that was not delivered.
 */
export class DeliveryCursor {
  private readonly seqs: number[] = [];
  private readonly settled: boolean[] = [];
  /** Index in `seqs` of the first change not yet settled. */
  private head = 0;
  /** Absolute index of seqs[0] (the arrays are compacted from the front). */
  private base = 0;
  private at: number;

  constructor(cursor: number) {
    this.at = cursor;
  }

  /** The seq of the last change of the contiguous settled run. */
  get cursor(): number {
    return this.at;
  }

  /** Changes handed out and not yet settled, or settled behind one that is not. */
  get outstanding(): number {
    return this.seqs.length - this.head;
  }

  /** Hands out the change `seq` (higher than any before); the ticket that settles it. */
  add(seq: number): number {
    const last = this.seqs.length > this.head ? (this.seqs[this.seqs.length - 1] as number) : this.at;
    if (seq <= last) throw new Error(`change ${seq} handed out after ${last}`);
    this.seqs.push(seq);
    this.settled.push(false);
    return this.base + this.seqs.length - 1;
  }

  /** Settles a change handed out; the cursor after it. */
  settle(ticket: number): number {
    const index = ticket - this.base;
    if (index < this.head || index >= this.seqs.length) throw new Error(`unknown ticket ${ticket}`);
    this.settled[index] = true;
    while (this.head < this.seqs.length && this.settled[this.head] === true) {
      this.at = this.seqs[this.head] as number;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.seqs.length) {
      this.seqs.splice(0, this.head);
      this.settled.splice(0, this.head);
      this.base += this.head;
      this.head = 0;
    }
    return this.at;
  }

  /** Changes up to `seq` that need no notification (filtered out, or the rest of a page); the cursor after them. */
  pass(seq: number): number {
    const last = this.seqs.length > this.head ? (this.seqs[this.seqs.length - 1] as number) : this.at;
    if (seq <= last) return this.at;
    return this.settle(this.add(seq));
  }
}
