import { hashInts, unit } from './random.js';

/**
 * What makes the demo look like a real city rather than a perfect one: some sensors stopped days
 * ago (a dead battery, a device taken down) and show offline, others were silent for some hours
 * (a gateway down) and leave a gap in their history. Both are drawn from the asset's seed and are
 * placed relative to the end of the history, never in its last 36 hours, so that a short history
 * is whole and every stopped sensor is past the online window.
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

export function irregularityOf(seed: number): Irregularity {
  const stopped = unit(hashInts(seed, 201)) < STOPPED_SHARE;
  const gapped = !stopped && unit(hashInts(seed, 202)) < GAP_SHARE;
  const stoppedBeforeEnd = stopped ? Math.round((1.5 + 4.5 * unit(hashInts(seed, 203))) * DAY_MS) : null;
  const gapStart = (2.5 + 3 * unit(hashInts(seed, 204))) * DAY_MS;
  const gapLength = (4 + 20 * unit(hashInts(seed, 205))) * HOUR_MS;
  return { stoppedBeforeEnd, gapBeforeEnd: gapped ? [gapStart, gapStart - gapLength] : null };
}

/** Whether an asset with `irregularity` reports at `time` of a history ending at `end`. */
export function reportsAt(irregularity: Irregularity, time: number, end: number): boolean {
  const before = end - time;
  if (irregularity.stoppedBeforeEnd !== null && before < irregularity.stoppedBeforeEnd) return false;
  const gap = irregularity.gapBeforeEnd;
  return !gap || before > gap[0] || before <= gap[1];
}
