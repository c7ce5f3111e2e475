/**
 * Dates in queries, the platform's one rule for them (the datasource's bounds and discovery's
 * lastUpdated alike; docs/datasource.md, "Dates"). Query bounds are read leniently, because the
 * only known client sends them without seconds (`2017-01-09T19:26Z`); readings
 * are written strictly, as ISO 8601 UTC with milliseconds (`…T19:26:35.000Z`).
 */

// date, then optionally a time (minutes required, seconds and fraction optional) with an optional zone.
// A space stands for `+` in the zone: an unencoded `+01:00` arrives as ` 01:00` after form decoding.
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

export const DATE_EXAMPLES = '2017-01-09T19:26Z, 2017-01-09T19:26:35Z or 2017-01-09T19:26:35.000+01:00';

/**
 * Epoch milliseconds of an ISO 8601 date or date-time, or undefined when the
 * text is not one. Accepted: `YYYY-MM-DD`, `YYYY-MM-DDTHH:mm`, `…:ss`,
 * `…:ss.fff` (1–9 fraction digits, kept to the millisecond), with `Z`,
 * `±HH:mm`, `±HHmm` or `±HH`; without a zone the time is UTC. The instant named
 * is the start of what is written: `19:26` is 19:26:00.000.
 */
export function parseIsoDate(text: string): number | undefined {
  const m = ISO_DATE.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const offset = zoneOffsetMinutes(zone);
  if (offset === undefined) return undefined;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not turn years 0–99 into 1900–1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime() - offset * 60_000;
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/** `Z` → 0, `+01:00` → 60, `-0130` → -90, ` 02` → 120; undefined when out of range. */
function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'z') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return sign * (hours * 60 + minutes);
}

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
let cachedDay = Number.NaN;
let cachedDayPrefix = '';

/**
 * How readings show their receive time: ISO 8601 UTC with milliseconds, as
 * Date#toISOString writes it. A page holds up to a thousand readings, mostly of
 * the same day: the date part is kept from the previous call and the time of
 * day is written from integers, several times faster than a Date per reading.
 */
export function formatRecvTime(epochMs: number): string {
  const day = Math.floor(epochMs / DAY_MS);
  if (day !== cachedDay) {
    const iso = new Date(day * DAY_MS).toISOString();
    cachedDayPrefix = iso.slice(0, iso.indexOf('T') + 1);
    cachedDay = day;
  }
  let rest = epochMs - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${cachedDayPrefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[rest - seconds * 1000]}Z`;
}
