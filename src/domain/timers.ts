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
 * timeout set for no time at all fires at once (in a microtask).
 */
export class ManualTimers implements Timers {
  private readonly scheduled = new Map<number, Scheduled>();
  private next = 1;
  private elapsed = 0;

  constructor(private readonly clock?: ManualClock) {}

  /** The clock's time when there is one (a test may also move it directly), else the time moved so far. */
  private now(): number {
    return this.clock ? this.clock.now() : this.elapsed;
  }

  private moveTo(time: number): void {
    const by = time - this.now();
    if (by <= 0) return;
    if (this.clock) this.clock.advance(by);
    else this.elapsed = time;
  }

  setTimeout(fire: () => void, ms: number): unknown {
    const handle = this.next++;
    if (ms <= 0) queueMicrotask(fire);
    else this.scheduled.set(handle, { due: this.now() + ms, every: undefined, fire });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.scheduled.delete(handle as number);
  }

  every(ms: number, tick: () => void): CancelTimer {
    const handle = this.next++;
    this.scheduled.set(handle, { due: this.now() + ms, every: ms, fire: tick });
    return () => this.scheduled.delete(handle);
  }

  /** Moves time on by `ms`, firing every timer due by then, in time order. */
  advance(ms: number): void {
    const end = this.now() + ms;
    for (;;) {
      let first: [number, Scheduled] | undefined;
      for (const entry of this.scheduled) if (entry[1].due <= end && (!first || entry[1].due < first[1].due)) first = entry;
      if (!first) break;
      const [handle, timer] = first;
      this.moveTo(timer.due);
      if (timer.every === undefined) this.scheduled.delete(handle);
      else timer.due += timer.every;
      timer.fire();
    }
    this.moveTo(end);
  }
}
