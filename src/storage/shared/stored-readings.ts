import { formatRecvTime } from '../../domain/history-dates.js';

/**
 * Readings read from the columns a store keeps (the dialect's `readings.stored`):
 * a value kept as NULL is the ISO 8601 text of the reading's observation time,
 * which SQLite leaves out of the row (../sqlite/sent-value.ts).
 */
export const storedValueOf = (value: string | null, observedTime: number): string => value ?? formatRecvTime(observedTime);

/** A stored reading as a page of them is read: the value still as stored, the observation time as an offset. */
export interface StoredReading {
  recvTime: number;
  seq: number;
  attrName: number;
  attrType: number;
  attrValue: string | null;
  observedTime: number;
}

/**
 * The readings of a packed page (the dialect's `readings.packed`): one line a
 * reading, its fields separated by commas, the value last (left out when
 * NULL; written as a JSON string when it holds a line break or starts with a
 * quote, as it is otherwise).
 */
export function unpackReadings(packed: string | null): StoredReading[] {
  if (packed === null) return [];
  const out: StoredReading[] = [];
  // Read in place, field by field: a page's text is large, and nothing is cut from it but the values.
  for (let start = 0; start < packed.length;) {
    let end = packed.indexOf('\n', start);
    if (end === -1) end = packed.length;
    const a = packed.indexOf(',', start);
    const b = packed.indexOf(',', a + 1);
    const c = packed.indexOf(',', b + 1);
    const d = packed.indexOf(',', c + 1);
    let e = packed.indexOf(',', d + 1);
    if (e > end) e = -1;
    const value = e === -1 ? null : packed.slice(e + 1, end);
    out.push({
      recvTime: integerIn(packed, start, a),
      seq: integerIn(packed, a + 1, b),
      attrName: integerIn(packed, b + 1, c),
      attrType: integerIn(packed, c + 1, d),
      observedTime: integerIn(packed, d + 1, e === -1 ? end : e),
      attrValue: value !== null && value.startsWith('"') ? JSON.parse(value) as string : value,
    });
    start = end + 1;
  }
  return out;
}

/** The integer written in decimal in `text` from `start` to `end` (a sign allowed), as it is read without cutting it out. */
function integerIn(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === 45;
  let n = 0;
  for (let i = negative ? start + 1 : start; i < end; i++) n = n * 10 + (text.charCodeAt(i) - 48);
  return negative ? -n : n;
}
