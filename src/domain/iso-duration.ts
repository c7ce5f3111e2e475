/**
 * ISO 8601 durations of fixed length, the platform's one parser for them (the
 * datasource's aggrPeriod, as NGSI-LD's aggrPeriodDuration): weeks, days, hours,
 * minutes and seconds, e.g. `PT5M`, `PT15M`, `PT6H`, `P1D`, `P7D`, `P1DT12H`,
 * `PT0.5S`. Days are 24 hours (UTC has no daylight saving). Years and months
 * have no fixed length, so they are refused with that reason.
 */

export type DurationParse = { ok: true; ms: number } | { ok: false; reason: string };

const SHAPE = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d{1,3})?)S)?)?$/;
const UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000] as const;

/** The longest duration read: ten thousand days, far beyond any bucket, well within exact integers. */
export const MAX_DURATION_MS = 10_000 * 86_400_000;

export function parseIsoDuration(text: string): DurationParse {
  const datePart = text.startsWith('P') ? (text.slice(1).split('T')[0] as string) : '';
  if (/\d[YM]/.test(datePart)) {
    return { ok: false, reason: 'names years or months, which have no fixed length: use days or weeks (P30D, P4W)' };
  }
  const m = SHAPE.exec(text);
  if (!m || text === 'P' || text.endsWith('T')) return { ok: false, reason: 'is not an ISO 8601 duration of weeks, days, hours, minutes or seconds' };
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) {
    const part = m[i + 1];
    if (part !== undefined) ms += Math.round(Number(part.replace(',', '.')) * (UNIT_MS[i] as number));
  }
  if (ms <= 0) return { ok: false, reason: 'is no time at all' };
  if (ms > MAX_DURATION_MS) return { ok: false, reason: 'is longer than 10000 days' };
  return { ok: true, ms };
}
