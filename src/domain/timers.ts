import type { ManualClock } from './clock.js';

/** Stops a repeating timer. */
export type CancelTimer = () => void;

/**
 * The timers background work waits on (a delivery's retry, the event
 * stream's heartbeat): the system's by default; tests pass manual ones and
 * move time themselves, so a retry ten minutes away takes no time.
 */
export interface Timers {
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  every(ms: number, tick: () => void): CancelTimer;
}

/** Real timers; they never keep the process alive on their own. */
export const systemTimers: Timers = {
  setTimeout: (fire, ms) => setTimeout(fire, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface Scheduled {
  due: number;
  /** Repeats every `every` ms; once when undefined. */
  every: number | undefined;
  fire: () => void;
}

/**
 * Timers that fire only when told how much time passed; they move the clock
 * given along, firing each timer as often as it fell due, in time order. A
 * timeout is due at a time of the clock, so a test that moves the clock itself
 * makes it due too; a repeating timer counts only the time moved through the
 * timers, as a real interval does not fire for time that never passed. A
 * timeout set for no time at all fires at once (in a microtask).
 */
export class ManualTimers implements Timers {
  private readonly timeouts = new Map<number, Scheduled>();
  private readonly intervals = new Map<number, Scheduled>();
  private next = 1;
  private elapsed = 0;

  constructor(private readonly clock?: ManualClock) {}

  private clockNow(): number {
    return this.clock ? this.clock.now() : this.elapsed;
  }

  setTimeout(fire: () => void, ms: number): unknown {
    const handle = this.next++;
    if (ms <= 0) queueMicrotask(fire);
    else this.timeouts.set(handle, { due: this.clockNow() + ms, every: undefined, fire });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.timeouts.delete(handle as number);
  }

  every(ms: number, tick: () => void): CancelTimer {
    const handle = this.next++;
    this.intervals.set(handle, { due: this.elapsed + ms, every: ms, fire: tick });
    return () => this.intervals.delete(handle);
  }

  /** Moves time on by `ms`, firing every timer due by then, in time order. */
  advance(ms: number): void {
    let left = ms;
    for (;;) {
      // How far ahead each timer is, in the time base it counts in.
      let first: { wait: number; handle: number; timer: Scheduled; repeating: boolean } | undefined;
      for (const [handle, timer] of this.timeouts) {
        const wait = Math.max(0, timer.due - this.clockNow());
        if (wait <= left && (!first || wait < first.wait)) first = { wait, handle, timer, repeating: false };
      }
      for (const [handle, timer] of this.intervals) {
        const wait = Math.max(0, timer.due - this.elapsed);
        if (wait <= left && (!first || wait < first.wait)) first = { wait, handle, timer, repeating: true };
      }
      if (!first) break;
      this.step(first.wait);
      left -= first.wait;
      if (first.repeating) first.timer.due = this.elapsed + (first.timer.every as number);
      else this.timeouts.delete(first.handle);
      first.timer.fire();
    }
    this.step(left);
  }

  private step(ms: number): void {
    if (ms <= 0) return;
    this.elapsed += ms;
    this.clock?.advance(ms);
  }
}
