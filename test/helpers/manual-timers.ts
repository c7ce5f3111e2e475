import type { ManualClock } from '../../src/domain/clock.js';
import type { Timers } from '../../src/services/timers.js';

/**
 * Timers that fire only when the test moves the clock: a retry ten minutes
 * away takes no time. A timer set for a moment the clock has already passed
 * fires at once.
 */
export class ManualTimers implements Timers {
  private readonly pending = new Map<number, { due: number; fire: () => void }>();
  private next = 1;

  constructor(readonly clock: ManualClock) {}

  setTimeout(fire: () => void, ms: number): unknown {
    const handle = this.next++;
    const due = this.clock.now() + Math.max(0, ms);
    if (ms <= 0) {
      queueMicrotask(fire);
      return handle;
    }
    this.pending.set(handle, { due, fire });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /** Moves the clock on and fires, in order, every timer due by then. */
  advance(ms: number): void {
    this.clock.advance(ms);
    const due = [...this.pending.entries()].filter(([, t]) => t.due <= this.clock.now()).sort((a, b) => a[1].due - b[1].due);
    for (const [handle, timer] of due) {
      this.pending.delete(handle);
      timer.fire();
    }
  }
}
