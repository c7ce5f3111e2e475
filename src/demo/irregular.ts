import { hashInts, unit } from './random.js';

/**
 * What makes the demo look like a real city rather than a perfect one: some sensors stopped days
 * ago (a dead battery, a device taken down) and show offline, others were silent for some hours
 * (a gateway down) and leave a gap in their history. Both are drawn from the asset's seed and are
 * placed relative to the end of the history, never in its last 36 hours, so that a short history
 * is whole and every stopped sensor is past the online window. A stopped sensor's history is as
 * long as the others', only earlier: it ends when it stopped.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Shares of assets: stopped, and with a gap. */
const STOPPED_SHARE = 0.08;
const GAP_SHARE = 0.15;

export interface Irregularity {
  /** Ms before the end at which the asset sent its last report (it stopped); null: it never stopped. */
  stoppedBeforeEnd: number | null;
  /** [from, to) in ms before the end: no reports then; null: no gap. */
  gapBeforeEnd: [number, number] | null;
}

/** How an asset reports: every `cadenceMs` (its turns are the multiples of it), over `historyMs` up to its last report. */
export interface Reporting {
  cadenceMs: number;
  historyMs: number;
}

export function irregularityOf(seed: number): Irregularity {
  const stopped = unit(hashInts(seed, 201)) < STOPPED_SHARE;
  const gapped = !stopped && unit(hashInts(seed, 202)) < GAP_SHARE;
  const stoppedBeforeEnd = stopped ? Math.round((1.5 + 4.5 * unit(hashInts(seed, 203))) * DAY_MS) : null;
  const gapStart = (2.5 + 3 * unit(hashInts(seed, 204))) * DAY_MS;
  const gapLength = (4 + 20 * unit(hashInts(seed, 205))) * HOUR_MS;
  return { stoppedBeforeEnd, gapBeforeEnd: gapped ? [gapStart, gapStart - gapLength] : null };
}

/** The asset's last report of a history ending at `end`: its last turn by the end, or by the time it stopped. */
export function lastReportAt(irregularity: Irregularity, end: number, cadenceMs: number): number {
  return Math.floor((end - (irregularity.stoppedBeforeEnd ?? 0)) / cadenceMs) * cadenceMs;
}

/** The asset's first report of a history ending at `end`: its turn `historyMs` (or a little more, to fall on a turn) before its last one. */
export function firstReportAt(irregularity: Irregularity, end: number, reporting: Reporting): number {
  return lastReportAt(irregularity, end, reporting.cadenceMs) - Math.ceil(reporting.historyMs / reporting.cadenceMs) * reporting.cadenceMs;
}

/**
 * Whether an asset with `irregularity` reports at `time` of a history ending at `end`: on one of its
 * turns from its first report to its last, unless silent in its gap.
 */
export function reportsAt(irregularity: Irregularity, time: number, end: number, reporting: Reporting): boolean {
  if (time % reporting.cadenceMs !== 0) return false;
  if (time > lastReportAt(irregularity, end, reporting.cadenceMs) || time < firstReportAt(irregularity, end, reporting)) return false;
  const before = end - time;
  const gap = irregularity.gapBeforeEnd;
  return !gap || before > gap[0] || before <= gap[1];
}
