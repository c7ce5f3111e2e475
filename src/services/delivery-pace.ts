import { performance } from 'node:perf_hooks';

/**
 * Keeps delivery from starving the requests the server answers: both run on
 * one event loop, and a backlog of notifications would otherwise take all of
 * it. Every LOOK_MS the pace looks at how busy the loop was and how many
 * writes were under way on average. The loop is saturated past SATURATED; it
 * is already past SATURATED_FOR_WRITES while writes pile up (WAITING_WRITES
 * under way on average: requests wait for their answers, and whatever the
 * loop gives delivery it takes from them and from the cores the store's
 * writers need). Once it has been saturated for SATURATED_LOOKS looks in a
 * row, the rate at which notifications may start is lowered below what
 * started (never under FLOOR_PER_S); while it has room, the rate is raised
 * again, and past CEILING_PER_S it is unbounded. Notifications beyond the
 * rate wait, in order. A quiet server delivers at full speed, and so does one
 * whose own requests have room (delivery catching up may take the loop near
 * its bound); one saturated by requests delivers slowly (nothing is lost: the
 * cursors wait) until it has room again. A busy moment (a collection of
 * garbage, a burst of changes) holds nothing back: cutting delivery for it
 * would only leave a backlog that every later notification waits behind.
 */

const LOOK_MS = 100;
/** The share of its time the loop may be busy before delivery gives way. */
const SATURATED = 0.9;
/** The same while writes pile up. */
const SATURATED_FOR_WRITES = 0.75;
/** Writes under way on average that are piling up: a server with room has a few at a time. */
const WAITING_WRITES = 24;
/** Looks in a row the loop must be saturated before delivery gives way. */
const SATURATED_LOOKS = 3;
/** Notifications a second that start however busy the loop. */
const FLOOR_PER_S = 200;
/** Past this rate, delivery is not held at all. */
const CEILING_PER_S = 200_000;
/** Starts a rate lets through at once after a pause. */
const BURST = 64;

export interface PaceSignals {
  /** Milliseconds, monotonic. */
  now(): number;
  /** The share of the time since the last call the event loop was busy (0 to 1). */
  busy(): number;
  /** The mean number of writes under way since the last call. */
  writes(): number;
}

/** The server's signals: its event loop, and `writeTimeMs`, the time writes spent in the store's pipeline (summed, growing). */
export function serverSignals(writeTimeMs: () => number): PaceSignals {
  let last = performance.eventLoopUtilization();
  let lastAt = performance.now();
  let lastWriteTime = writeTimeMs();
  return {
    now: () => performance.now(),
    busy() {
      const current = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(current, last).utilization;
      last = current;
      return share;
    },
    writes() {
      const at = performance.now();
      const writeTime = writeTimeMs();
      const mean = at > lastAt ? (writeTime - lastWriteTime) / (at - lastAt) : 0;
      lastAt = at;
      lastWriteTime = writeTime;
      return mean;
    },
  };
}

export class DeliveryPace {
  /** Starts a second allowed (Infinity: unbounded). */
  private rate = Number.POSITIVE_INFINITY;
  private tokens = BURST;
  private refilledAt: number;
  private started = 0;
  private lookedAt: number;
  /** Looks in a row that found the loop saturated. */
  private saturatedLooks = 0;
  private readonly waiting: Array<() => void> = [];
  private releaser: ReturnType<typeof setTimeout> | undefined;
  private looker: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly signals: PaceSignals) {
    this.refilledAt = signals.now();
    this.lookedAt = this.refilledAt;
  }

  /** The starts a second now allowed (Infinity: unbounded). */
  get allowed(): number {
    return this.rate;
  }

  /** Resolves when one more notification may start: at once (undefined) while the rate allows. */
  take(): Promise<void> | undefined {
    this.looker ??= setInterval(() => this.look(), LOOK_MS).unref();
    this.refill();
    if (this.waiting.length === 0 && this.tokens >= 1) {
      this.tokens--;
      this.started++;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      this.releaseLater();
    });
  }

  /** Looks at how busy the loop was since the last look, and sets the rate for the next. */
  look(): void {
    const now = this.signals.now();
    const busy = this.signals.busy();
    const bound = this.signals.writes() >= WAITING_WRITES ? SATURATED_FOR_WRITES : SATURATED;
    const startedPerS = (this.started * 1000) / Math.max(1, now - this.lookedAt);
    this.started = 0;
    this.lookedAt = now;
    this.saturatedLooks = busy > bound ? this.saturatedLooks + 1 : 0;
    if (this.saturatedLooks >= SATURATED_LOOKS) {
      // Saturated without delivery in it: the rate stays as it is.
      if (this.waiting.length > 0 || startedPerS > 0) this.rate = Math.max(FLOOR_PER_S, Math.min(this.rate, startedPerS) * 0.7);
    } else if (busy <= bound && this.rate !== Number.POSITIVE_INFINITY) {
      this.rate *= 1.5;
      if (this.rate > CEILING_PER_S) this.rate = Number.POSITIVE_INFINITY;
    }
    if (this.rate === Number.POSITIVE_INFINITY && this.waiting.length === 0 && startedPerS === 0) {
      clearInterval(this.looker);
      this.looker = undefined;
    }
    this.release();
  }

  close(): void {
    clearInterval(this.looker);
    this.looker = undefined;
    clearTimeout(this.releaser);
    this.releaser = undefined;
    this.rate = Number.POSITIVE_INFINITY;
    this.release();
  }

  private refill(): void {
    const now = this.signals.now();
    this.tokens = this.rate === Number.POSITIVE_INFINITY ? BURST : Math.min(BURST, this.tokens + ((now - this.refilledAt) * this.rate) / 1000);
    this.refilledAt = now;
  }

  private release(): void {
    this.refill();
    while (this.waiting.length > 0 && this.tokens >= 1) {
      this.tokens--;
      this.started++;
      (this.waiting.shift() as () => void)();
      if (this.rate === Number.POSITIVE_INFINITY) this.tokens = BURST;
    }
    if (this.waiting.length > 0) this.releaseLater();
  }

  private releaseLater(): void {
    if (this.releaser !== undefined) return;
    const wait = Math.max(1, Math.ceil(((1 - this.tokens) * 1000) / this.rate));
    this.releaser = setTimeout(() => {
      this.releaser = undefined;
      this.release();
    }, wait);
  }
}
