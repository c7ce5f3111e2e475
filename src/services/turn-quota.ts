import { performance } from 'node:perf_hooks';

/**
 * Shares the event loop between delivery and the requests the server answers.
 * In one turn of the loop, notifications start while the turn is younger than
 * `budgetMs` (at least one a turn); the others wait for the next turn, after
 * the loop has taken in whatever arrived in the meantime (requests among it).
 * A server busy answering has long turns, and delivery takes a small share of
 * each; a quiet one turns fast, and delivery has nearly the whole loop.
 */
export class TurnQuota {
  private used = 0;
  private turnBegan = performance.now();
  private readonly waiting: Array<() => void> = [];
  private armed = false;

  constructor(private readonly budgetMs: number) {}

  private hasRoom(): boolean {
    return this.used === 0 || performance.now() - this.turnBegan < this.budgetMs;
  }

  /** Resolves when one more may start: at once (undefined) while this turn has room. */
  take(): Promise<void> | undefined {
    this.arm();
    if (this.waiting.length === 0 && this.hasRoom()) {
      this.used++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** At the end of this turn, the next one begins: its room opens to those waiting, in order. */
  private arm(): void {
    if (this.armed) return;
    this.armed = true;
    setImmediate(() => void this.nextTurn());
  }

  private async nextTurn(): Promise<void> {
    this.armed = false;
    this.used = 0;
    this.turnBegan = performance.now();
    while (this.waiting.length > 0 && this.hasRoom()) {
      this.used++;
      (this.waiting.shift() as () => void)();
      // The one let go starts (its synchronous part runs) before the room is looked at again.
      await Promise.resolve();
    }
    if (this.waiting.length > 0 || this.used > 0) this.arm();
  }
}
