import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../domain/clock.js';

/** While an outage lasts, one summary line this often at most (and a look whether the store is back). */
export const OUTAGE_SUMMARY_MS = 10_000;

/** What an error says about itself in one line: no stack, no detail that repeats thousands of times. */
function briefly(error: unknown): { type: string; code?: string; message: string } {
  const e = error as { name?: unknown; code?: unknown; message?: unknown } | null;
  const brief: { type: string; code?: string; message: string } = {
    type: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message.slice(0, 200) : String(error).slice(0, 200),
  };
  if (typeof e?.code === 'string') brief.code = e.code;
  return brief;
}

/**
 * The log of a store outage: one line when it starts (the first request answered 503 for it),
 * a summary while it lasts (at most every OUTAGE_SUMMARY_MS: how many requests were refused),
 * one line when it ends (the store answered again) — rather than a stack for every request
 * refused meanwhile, which would bury everything else in the log.
 */
export class StoreOutageLog {
  private startedAt: number | undefined;
  private refused = 0;
  private refusedSinceSummary = 0;
  private lastSummaryAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private looking = false;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly clock: Clock,
    /** Does the store answer now? (bounded) */
    private readonly storeAnswers: () => Promise<boolean>,
  ) {}

  get inOutage(): boolean {
    return this.startedAt !== undefined;
  }

  /** A request was answered 503 because of the store. */
  refusedFor(error: unknown): void {
    const now = this.clock.now();
    this.refused++;
    this.refusedSinceSummary++;
    if (this.startedAt === undefined) {
      this.startedAt = now;
      this.lastSummaryAt = now;
      this.log.error({ storeError: briefly(error) }, 'store outage: the store does not answer; requests that need it are answered 503 until it does');
      // Summaries, and the end of the outage, are told even when no request comes.
      this.timer = setInterval(() => this.tick(), OUTAGE_SUMMARY_MS);
      this.timer.unref();
      return;
    }
    if (now - this.lastSummaryAt >= OUTAGE_SUMMARY_MS) this.summarize(now, error);
  }

  /** A request was answered without a store failure: if an outage is on, look whether it is over. */
  answered(): void {
    if (this.startedAt !== undefined) this.lookForEnd();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    if (this.startedAt === undefined) return;
    const now = this.clock.now();
    if (this.refusedSinceSummary > 0 && now - this.lastSummaryAt >= OUTAGE_SUMMARY_MS) this.summarize(now);
    this.lookForEnd();
  }

  private summarize(now: number, error?: unknown): void {
    this.log.warn({
      outageSeconds: Math.round((now - (this.startedAt as number)) / 1000),
      refused: this.refusedSinceSummary,
      ...(error === undefined ? {} : { storeError: briefly(error) }),
    }, 'store outage goes on');
    this.lastSummaryAt = now;
    this.refusedSinceSummary = 0;
  }

  private lookForEnd(): void {
    if (this.looking) return;
    this.looking = true;
    void this.storeAnswers().catch(() => false).then((answers) => {
      this.looking = false;
      if (!answers || this.startedAt === undefined) return;
      this.log.info({ outageSeconds: Math.round((this.clock.now() - this.startedAt) / 1000), refused: this.refused }, 'store outage over: the store answers again');
      this.startedAt = undefined;
      this.refused = 0;
      this.refusedSinceSummary = 0;
      this.stop();
    });
  }
}
