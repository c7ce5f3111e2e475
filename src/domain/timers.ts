import type { ManualClock } from './clock.js';

/** Stops a repeating timer. */
export type CancelTimer = () => void;

/**
 * Repeating timers, passed to what must act on time alone (the event stream's
 * heartbeat); tests pass manual ones and move time themselves instead of waiting.
 */
export interface Timers {
  every(ms: number, tick: () => void): CancelTimer;
}

/** Real timers; they never keep the process alive on their own. */
export const systemTimers: Timers = {
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface Scheduled {
  next: number;
  ms: number;
  tick: () => void;
}

/** Timers that fire only when told how much time passed (tests); they move the clock given along. */
export class ManualTimers implements Timers {
  private elapsed = 0;
  private readonly scheduled = new Set<Scheduled>();

  constructor(private readonly clock?: ManualClock) {}

  every(ms: number, tick: () => void): CancelTimer {
    const entry: Scheduled = { next: this.elapsed + ms, ms, tick };
    this.scheduled.add(entry);
    return () => this.scheduled.delete(entry);
  }

  /** Moves time on by `ms`, firing each timer as often as it fell due, in time order. */
  advance(ms: number): void {
    const end = this.elapsed + ms;
    for (;;) {
      let first: Scheduled | undefined;
      for (const entry of this.scheduled) if (entry.next <= end && (!first || entry.next < first.next)) first = entry;
      if (!first) break;
      this.clock?.advance(first.next - this.elapsed);
      this.elapsed = first.next;
      first.next += first.ms;
      first.tick();
    }
    this.clock?.advance(end - this.elapsed);
    this.elapsed = end;
  }
}
