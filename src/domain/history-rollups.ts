import { isNumericValue, type BucketStats } from './aggregation.js';
import type { TimeIndex, TimeRange } from './history-query.js';

/**
 * Hourly and daily rollups of each series (asset, attribute): the count, sum,
 * least, greatest, first and last of its numeric readings by receive time.
 * An aggregation whose period is a whole number of hours reads them instead
 * of the raw readings: its buckets (epoch-aligned multiples of the period)
 * are made of whole hours, or of whole days when the period is whole days.
 *
 * The write path keeps the hours current. A day's rollup is built from its
 * hours once the day has ended (rollups are by receive time, so an ended
 * day no longer changes): the store keeps the day before which every day is
 * built, and a daily answer reads the built days before it and the hours of
 * the days after it. A reading received for a day already built (a clock set
 * back, a bulk load) adds to that day's rollup as it is written.
 */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The periods rolled up, each a granule of the periods built from it. */
export const ROLLUP_PERIODS_MS = [HOUR_MS, DAY_MS] as const;

/**
 * How long after a day ends its rollup is built from its hours: longer than
 * any write received during the day may take to commit (STORE_TIMEOUT bounds
 * them), so that the hours are complete.
 */
export const BUILD_DAY_AFTER_MS = 10 * 60_000;

/** The start of the day (UTC) that holds `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The start of the first day whose rollup may not be built yet at `now`: every day before it ended BUILD_DAY_AFTER_MS ago. */
export function daysBuildableBefore(now: number): number {
  return startOfDay(now - BUILD_DAY_AFTER_MS);
}

/** The rollup a period of this length is built from (days when it is whole days), or undefined when it is not whole hours. */
export function rollupGranule(periodMs: number): number | undefined {
  if (periodMs % DAY_MS === 0) return DAY_MS;
  if (periodMs % HOUR_MS === 0) return HOUR_MS;
  return undefined;
}

/** The rollup an aggregation is answered from, or undefined when it reads the raw readings (rollups are by receive time). */
export function rollupGranuleOf(periodMs: number, timeIndex: TimeIndex | undefined): number | undefined {
  return timeIndex === 'observed' ? undefined : rollupGranule(periodMs);
}

/**
 * How a range is read from rollups of `granule`: the granules it holds whole
 * (their starts, from `first` to `last`), and the pieces at either end that
 * cut a granule, read from raw readings. No range: every granule, no pieces.
 */
export interface RollupSplit {
  whole: { first: number; last: number } | undefined | 'all';
  edges: TimeRange[];
}

/** `range.to` is inclusive, as everywhere in history. */
export function splitForRollups(range: TimeRange | undefined, granule: number): RollupSplit {
  if (range === undefined) return { whole: 'all', edges: [] };
  const firstWhole = Math.ceil(range.from / granule) * granule;
  const endWhole = Math.floor((range.to + 1) / granule) * granule;
  if (firstWhole >= endWhole) return { whole: undefined, edges: [range] };
  const edges: TimeRange[] = [];
  if (range.from < firstWhole) edges.push({ from: range.from, to: firstWhole - 1 });
  if (endWhole <= range.to) edges.push({ from: endWhole, to: range.to });
  return { whole: { first: firstWhole, last: endWhole - granule }, edges };
}

/**
 * Stats of parts of buckets (each within one bucket of `periodMs`) folded into
 * the buckets, ascending by start; the parts are added in the order given.
 */
export function foldIntoBuckets(parts: readonly BucketStats[], periodMs: number): BucketStats[] {
  const buckets = new Map<number, BucketStats>();
  for (const part of parts) {
    const start = Math.floor(part.start / periodMs) * periodMs;
    const bucket = buckets.get(start);
    if (!bucket) buckets.set(start, { ...part, start });
    else {
      bucket.count += part.count;
      bucket.sum += part.sum;
      bucket.min = Math.min(bucket.min, part.min);
      bucket.max = Math.max(bucket.max, part.max);
    }
  }
  return [...buckets.values()].sort((a, b) => a.start - b.start);
}

/** What a batch of readings adds to one rollup row. */
export interface RollupDelta {
  assetSeq: number;
  attrName: string;
  periodMs: number;
  bucket: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  firstTime: number;
  firstValue: number;
  lastTime: number;
  lastValue: number;
}

/** The readings of a batch as they are written: text values, receive times. */
export interface RolledReading {
  seq: number;
  name: string;
  recvTime: number;
  value: string;
}

/**
 * What a batch's readings, in write order, add to the rollups: numeric ones
 * only (isNumericValue), summed in write order; first and last by receive
 * time, ties going to the first and the last written. Every reading adds to
 * its hour; to its day only when received before `daysBuiltBefore` (the day
 * was already built from its hours).
 */
export function rollupDeltas(readings: readonly RolledReading[], daysBuiltBefore: number): RollupDelta[] {
  const deltas = new Map<string, RollupDelta>();
  for (const r of readings) {
    if (!isNumericValue(r.value)) continue;
    const v = Number(r.value);
    for (const periodMs of ROLLUP_PERIODS_MS) {
      if (periodMs === DAY_MS && r.recvTime >= daysBuiltBefore) continue;
      const bucket = Math.floor(r.recvTime / periodMs) * periodMs;
      const key = `${r.seq}\u0000${r.name}\u0000${periodMs}\u0000${bucket}`;
      const d = deltas.get(key);
      if (!d) {
        deltas.set(key, { assetSeq: r.seq, attrName: r.name, periodMs, bucket, count: 1, sum: v, min: v, max: v, firstTime: r.recvTime, firstValue: v, lastTime: r.recvTime, lastValue: v });
        continue;
      }
      d.count++;
      d.sum += v;
      if (v < d.min) d.min = v;
      if (v > d.max) d.max = v;
      if (r.recvTime < d.firstTime) {
        d.firstTime = r.recvTime;
        d.firstValue = v;
      }
      if (r.recvTime >= d.lastTime) {
        d.lastTime = r.recvTime;
        d.lastValue = v;
      }
    }
  }
  return [...deltas.values()];
}
