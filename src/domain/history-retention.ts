import { DAY_MS, startOfDay } from './history-rollups.js';
/**
 * What history keeps: raw readings for the retention of their site (or the
 * platform's, HISTORY_RETENTION), judged by receive time; hourly and daily
 * rollups for ROLLUP_RETENTION after their hour or day ended. Infinity: forever.
 */

/** Retention texts: a duration such as `90d` (the grammar of the settings), or `forever`. */
export const FOREVER = 'forever';

/** The retention a site's readings follow: its own when it names one, else the platform's. */
export function effectiveRetentionMs(own: number | undefined, platformMs: number): number {
  return own ?? platformMs;
}

/** Readings received before this time (epoch ms) have expired; undefined when nothing expires. */
export function readingsExpireBefore(now: number, retentionMs: number): number | undefined {
  return Number.isFinite(retentionMs) ? now - retentionMs : undefined;
}

/**
 * Rollups whose bucket started before this time (epoch ms) have expired: a
 * bucket expires once its whole period ended longer ago than the retention,
 * so `start + period <= now - retention`. Undefined when nothing expires.
 */
export function rollupsExpireBefore(now: number, retentionMs: number, periodMs: number): number | undefined {
  return Number.isFinite(retentionMs) ? now - retentionMs - periodMs + 1 : undefined;
}

/**
 * Readings received before this may be packed (where the store packs them):
 * those of the days before yesterday (UTC), which no write adds to any more
 * and whose queries are mostly of whole days.
 */
export function packableBefore(now: number): number {
  return startOfDay(now) - DAY_MS;
}
