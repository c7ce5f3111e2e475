import { badRequest } from './errors.js';

/** The attribute every create and update carries: when the site observed the asset. */
export const TIME_INSTANT = 'TimeInstant';
export const TIME_INSTANT_TYPE = 'urn:oc:attributeType:ISO8601';
export const TIME_INSTANT_FORMAT = 'YYYY-MM-DDTHH:mm:ss.SSSZ';

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

export type InstantParse = { ok: true; epochMs: number } | { ok: false; reason: 'format' | 'calendar' };

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a proleptic Gregorian date (valid for every year, including 0000). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Parses `YYYY-MM-DDTHH:mm:ss.SSSZ` strictly: UTC only (a trailing upper-case Z),
 * exactly three fraction digits, and a real calendar instant (no 30 February,
 * no hour 24, no second 60). `format` means the shape is wrong, `calendar` that
 * the shape is right but no such instant exists.
 */
export function parseInstant(text: string): InstantParse {
  const m = SHAPE.exec(text);
  if (!m) return { ok: false, reason: 'format' };
  const [year, month, day, hour, minute, second, milli] = m.slice(1).map(Number) as [number, number, number, number, number, number, number];
  if (month < 1 || month > 12) return { ok: false, reason: 'calendar' };
  const monthDays = month === 2 && isLeap(year) ? 29 : (DAYS_IN_MONTH[month - 1] as number);
  if (day < 1 || day > monthDays || hour > 23 || minute > 59 || second > 59) return { ok: false, reason: 'calendar' };
  const epochMs = ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli;
  return { ok: true, epochMs };
}

/** The canonical text of an instant (the datasource's recvTime). */
export function formatInstant(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/**
 * Checks the TimeInstant attribute of a create or update body and returns its
 * instant (epoch ms). Each failure has its own description; the first four
 * keep the wording of the original platform, which site clients may match.
 */
export function readTimeInstant(attribute: unknown): number {
  if (attribute === undefined || attribute === null || attribute === false || attribute === 0 || attribute === '') {
    throw badRequest('Asset attribute TimeInstant in payload not found!');
  }
  if (typeof attribute !== 'object' || Array.isArray(attribute)) {
    throw badRequest(`Asset attribute TimeInstant must be an object with type and value: expected {"type":"${TIME_INSTANT_TYPE}","value":"${TIME_INSTANT_FORMAT}"}, got ${typeof attribute === 'string' ? shownText(attribute) : shownValue(attribute)}`);
  }
  const { type, value } = attribute as { type?: unknown; value?: unknown };
  if (type !== TIME_INSTANT_TYPE) throw badRequest(`Asset attribute TimeInstant.type must be ${TIME_INSTANT_TYPE}`);
  if (value === undefined || value === null || value === '' || value === false || value === 0) {
    throw badRequest('Asset attribute TimeInstant.value not provided!');
  }
  if (typeof value !== 'string') {
    throw badRequest(`Asset attribute TimeInstant.value must be a string: expected ${TIME_INSTANT_FORMAT}, got ${shownValue(value)}`);
  }
  const parsed = parseInstant(value);
  if (parsed.ok) return parsed.epochMs;
  if (parsed.reason === 'calendar') {
    throw badRequest(`Asset attribute TimeInstant.value is not a real calendar instant: expected ${TIME_INSTANT_FORMAT} naming a real date and time, got ${shownText(value)}`);
  }
  const hint = formatHint(value);
  throw badRequest(`Asset attribute TimeInstant.value is not in the required format: expected ${TIME_INSTANT_FORMAT}, got ${shownText(value)}${hint ? ` (${hint})` : ''}`);
}

/** The text a site sent, quoted, cut short when it is long (a message never echoes a whole body). */
const shownText = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);

/** A value that is not a string, as a message shows it: the JSON text and what kind of value it is. */
function shownValue(value: unknown): string {
  const kind = Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  const text = JSON.stringify(value) ?? String(value);
  return `${text.length > 60 ? `${text.slice(0, 57)}...` : text} (${kind})`;
}

/** What a date-time of almost the right shape lacks, when one difference explains it. */
function formatHint(text: string): string | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return 'a date without a time';
  if (/^\d{4}-\d{2}-\d{2} /.test(text)) return "a space where the 'T' goes";
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z$/.test(text)) return 'no milliseconds';
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/.test(text)) return 'milliseconds must have exactly three digits';
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+([+-]\d{2}(:?\d{2})?)$/.test(text)) return "an offset: only UTC, written 'Z', is accepted";
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+$/.test(text)) return "no zone: UTC is written 'Z'";
  if (/^\d{4}-\d{2}-\d{2}[Tt][\d:.]+[Zz]$/.test(text)) return "'T' and 'Z' are upper-case";
  return undefined;
}
