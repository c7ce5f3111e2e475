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
  for (const line of packed.split('\n')) {
    const a = line.indexOf(',');
    const b = line.indexOf(',', a + 1);
    const c = line.indexOf(',', b + 1);
    const d = line.indexOf(',', c + 1);
    const e = line.indexOf(',', d + 1);
    const value = e === -1 ? null : line.slice(e + 1);
    out.push({
      recvTime: Number(line.slice(0, a)),
      seq: Number(line.slice(a + 1, b)),
      attrName: Number(line.slice(b + 1, c)),
      attrType: Number(line.slice(c + 1, d)),
      observedTime: Number(e === -1 ? line.slice(d + 1) : line.slice(d + 1, e)),
      attrValue: value !== null && value.startsWith('"') ? JSON.parse(value) as string : value,
    });
  }
  return out;
}
