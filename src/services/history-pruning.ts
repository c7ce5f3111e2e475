import { parseRetention } from '../config.js';
import type { Clock } from '../domain/clock.js';
import { effectiveRetentionMs, packableBefore, readingsExpireBefore, rollupsExpireBefore } from '../domain/history-retention.js';
import { ROLLUP_PERIODS_MS } from '../domain/history-rollups.js';
import { dropExpiredReadings, dropExpiredRollups, listSiteRetentions, packReadings } from '../storage/repositories/history-retention.js';
import { buildEndedDays } from '../storage/repositories/reading-rollups.js';
import type { Store } from '../storage/store.js';

/** How often expired history is looked for. */
const PRUNE_EVERY_MS = 60_000;

export interface HistoryRetention {
  /** HISTORY_RETENTION: for the sites that name none of their own. */
  historyRetentionMs: number;
  /** ROLLUP_RETENTION. */
  rollupRetentionMs: number;
}

export interface PrunedHistory {
  /** Days whose rollups were built from their hours. */
  days: number;
  readings: number;
  rollups: number;
  /** Readings packed into blocks (on a store that packs them). */
  packed: number;
}

/**
 * Keeps history, once, as it should be at `now`: builds the rollups of the
 * days that have ended from their hours (first, so that no hour is dropped
 * before its day is built), then drops what has expired: each site's raw
 * readings older than its retention, and the rollups older than theirs (the
 * rollups of dropped readings stay until then); last, it packs the readings
 * of the days before yesterday where the store packs them (what expired is
 * not packed first). Every write is short
 * (../storage/repositories/history-retention.ts, reading-rollups.ts).
 */
export async function pruneHistory(store: Store, now: number, retention: HistoryRetention, stopped: () => boolean = () => false): Promise<PrunedHistory> {
  const days = await buildEndedDays(store, now, stopped);
  let readings = 0;
  for (const { site, retention: own } of await listSiteRetentions(store)) {
    if (stopped()) break;
    const before = readingsExpireBefore(now, effectiveRetentionMs(own === null ? undefined : parseRetention(own), retention.historyRetentionMs));
    if (before !== undefined) readings += await dropExpiredReadings(store, site, before, stopped);
  }
  let rollups = 0;
  for (const periodMs of ROLLUP_PERIODS_MS) {
    const before = rollupsExpireBefore(now, retention.rollupRetentionMs, periodMs);
    if (before !== undefined && !stopped()) rollups += await dropExpiredRollups(store, periodMs, before, stopped);
  }
  const packed = stopped() ? 0 : await packReadings(store, packableBefore(now), stopped);
  return { days, readings, rollups, packed };
}

export interface HistoryPruning {
  /** Stops the timer, once a pruning under way has ended its current write. */
  stop(): Promise<void>;
}

/**
 * Prunes history in the background, once a minute. Several processes on one
 * store may all prune: dropping what is gone drops nothing.
 */
export function startHistoryPruning(store: Store, clock: Clock, retention: HistoryRetention, onError: (error: unknown) => void): HistoryPruning {
  let running: Promise<unknown> | undefined;
  let stopping = false;
  const runOnce = () => {
    running ??= pruneHistory(store, clock.now(), retention, () => stopping).catch(onError).finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(runOnce, PRUNE_EVERY_MS).unref();
  return {
    async stop() {
      stopping = true;
      clearInterval(timer);
      await running;
    },
  };
}
