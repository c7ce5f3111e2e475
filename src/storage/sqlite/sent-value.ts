import { formatRecvTime } from '../../domain/history-dates.js';

/**
 * SQLite does not store a reading's value when it is the ISO 8601 text of
 * the reading's own observation time, as every `TimeInstant` reading sent
 * with milliseconds is (about a third of a history's readings): the virtual
 * column `attr_value` gives it back from the observation time (migration
 * 1700-readings-compact). Within these bounds, years 1970 to 9999, SQLite's
 * strftime and formatRecvTime (JavaScript's toISOString) write the same text.
 */
export const isoTextOf = (observedTime: string): string => `strftime('%Y-%m-%dT%H:%M:%fZ', ${observedTime} / 1000.0, 'unixepoch')`;

const LATEST_ISO_TEXT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** What a reading stores of its value: null when `attr_value` gives it back from the observation time. */
export function sentValue(value: string, observedTime: number): string | null {
  // The text read back (../shared/stored-readings.ts) is written by the same function.
  return value.length === 24 && observedTime >= 0 && observedTime <= LATEST_ISO_TEXT && value === formatRecvTime(observedTime) ? null : value;
}
