/**
 * Response bodies of the datasource, as the bytes of JSON or CSV text. Written
 * by hand rather than through a generic serializer: a page holds up to a
 * thousand readings, and its serialization is most of the cost of a request.
 */
import type { AggregateBucket, AggregationMethod } from '../../domain/aggregation.js';
import { csvDocument } from '../../domain/csv.js';
import { formatRecvTime } from '../../domain/history-dates.js';
import { asciiBytes, asciiQuote } from '../../http/ascii-json.js';
import type { ReadingRecord } from '../../storage/repositories/readings.js';

export type BodyFormat = 'json' | 'csv';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const CSV_TYPE = 'text/csv; charset=utf-8';

/**
 * CSV when the Accept header asks for text/csv at least as much as for
 * application/json (on a tie, whichever it lists first); JSON otherwise,
 * wildcards and unknown types included.
 */
export function negotiateFormat(accept: string | undefined): BodyFormat {
  if (!accept || !/csv/i.test(accept)) return 'json';
  let best: BodyFormat = 'json';
  let bestQ = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const format: BodyFormat | undefined = type === 'text/csv' ? 'csv' : type === 'application/json' ? 'json' : undefined;
    if (!format) continue;
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q) && q > bestQ) {
      best = format;
      bestQ = q;
    }
  }
  return best;
}

const str = JSON.stringify;
const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8');

/** A CSV header and its rows. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

export function readingsTable(readings: readonly ReadingRecord[], observed: boolean): CsvTable {
  if (observed) {
    return {
      header: ['recvTime', 'observedAt', 'attrName', 'attrType', 'attrValue'],
      rows: readings.map((r) => [formatRecvTime(r.recvTime), formatRecvTime(r.observedTime as number), r.attrName, r.attrType, r.attrValue]),
    };
  }
  return { header: ['recvTime', 'attrName', 'attrType', 'attrValue'], rows: readings.map((r) => [formatRecvTime(r.recvTime), r.attrName, r.attrType, r.attrValue]) };
}

const csvOf = (table: CsvTable): Buffer => utf8(csvDocument(table.header, table.rows));

/** With `observed` (timeIndex=observed), each reading also carries observedAt, after recvTime. */
export function readingsBody(readings: readonly ReadingRecord[], format: BodyFormat, observed = false): Buffer {
  if (format === 'csv') return csvOf(readingsTable(readings, observed));
  // Names and types repeat from one reading to the next: each is quoted once per run of equal ones.
  let name = '';
  let nameJson = '""';
  let type = '';
  let typeJson = '""';
  let out = '{"readings":[';
  for (let i = 0; i < readings.length; i++) {
    const r = readings[i] as ReadingRecord;
    if (r.attrName !== name) nameJson = asciiQuote((name = r.attrName));
    if (r.attrType !== type) typeJson = asciiQuote((type = r.attrType));
    if (i > 0) out += ',';
    const observedAt = observed ? `,"observedAt":"${formatRecvTime(r.observedTime as number)}"` : '';
    out += `{"recvTime":"${formatRecvTime(r.recvTime)}"${observedAt},"attrName":${nameJson},"attrType":${typeJson},"attrValue":${asciiQuote(r.attrValue)}}`;
  }
  return asciiBytes(`${out}]}`);
}

export const valuesTable = (readings: readonly ReadingRecord[]): CsvTable => ({ header: ['attrValue'], rows: readings.map((r) => [r.attrValue]) });

export function valuesBody(readings: readonly ReadingRecord[], format: BodyFormat): Buffer {
  if (format === 'csv') return csvOf(valuesTable(readings));
  return utf8(str(readings.map((r) => r.attrValue)));
}

/**
 * Buckets as {start, count, value} when one method was asked; with several,
 * each bucket carries one field per method, named after it, in the order asked.
 */
export function aggregatesTable(buckets: readonly AggregateBucket[], methods: readonly AggregationMethod[]): CsvTable {
  return {
    header: ['start', 'count', ...(methods.length === 1 ? ['value'] : methods)],
    rows: buckets.map((b) => [formatRecvTime(b.start), String(b.count), ...methods.map((m) => String(b.values[m]))]),
  };
}

export function aggregatesBody(buckets: readonly AggregateBucket[], methods: readonly AggregationMethod[], format: BodyFormat): Buffer {
  const single = methods.length === 1;
  if (format === 'csv') return csvOf(aggregatesTable(buckets, methods));
  return utf8(str({
    aggregates: buckets.map((b) => (single
      ? { start: formatRecvTime(b.start), count: b.count, value: b.values[methods[0] as AggregationMethod] }
      : { start: formatRecvTime(b.start), count: b.count, ...Object.fromEntries(methods.map((m) => [m, b.values[m]])) })),
  }));
}

export function attributesBody(names: readonly string[], format: BodyFormat): Buffer {
  if (format === 'csv') return utf8(csvDocument(['attribute'], names.map((n) => [n])));
  return utf8(str({ attributes: names }));
}
