import { parseIsoDuration } from './iso-duration.js';

/**
 * Server-side aggregation of one attribute's readings into time buckets.
 * Buckets are aligned on the Unix epoch in UTC (a day bucket starts at 00:00Z):
 * bucket start = floor(recvTime / period) * period, the same integer arithmetic
 * in every store. Only readings whose value is a number take part; the others
 * (text, booleans, JSON objects) are skipped, and a bucket without any number
 * is left out.
 */

export const AGGREGATION_METHODS = ['avg', 'min', 'max', 'sum', 'count'] as const;
export type AggregationMethod = (typeof AGGREGATION_METHODS)[number];

/** The named periods; any ISO 8601 duration of fixed length (src/domain/iso-duration.ts) is a period too. */
export const AGGREGATION_PERIODS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type AggregationPeriod = keyof typeof AGGREGATION_PERIODS;

export interface Aggregation {
  /** The method, or the first of those listed. */
  method: AggregationMethod;
  /** Present only when several methods were listed: all of them, in the order given. */
  methods?: readonly AggregationMethod[];
  /** The period as the request named it (`hour`, `PT15M`). */
  period: string;
  /** The bucket length in milliseconds. */
  periodMs: number;
}

export const methodsOf = (aggregation: Aggregation): readonly AggregationMethod[] => aggregation.methods ?? [aggregation.method];

/**
 * What a store tells of the numbers of one bucket: their count, sum, least and
 * greatest. Every method is computed from these, by one rule, whether they were
 * read from raw readings or from rollups.
 */
export interface BucketStats {
  start: number;
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** One bucket: its start (epoch ms), how many numbers it holds, and the aggregate of them per method asked. */
export interface AggregateBucket {
  start: number;
  count: number;
  values: Partial<Record<AggregationMethod, number>>;
}

export function methodValue(stats: BucketStats, method: AggregationMethod): number {
  switch (method) {
    case 'avg': return stats.sum / stats.count;
    case 'sum': return stats.sum;
    case 'min': return stats.min;
    case 'max': return stats.max;
    case 'count': return stats.count;
  }
}

export function aggregateBucket(stats: BucketStats, methods: readonly AggregationMethod[]): AggregateBucket {
  const values: Partial<Record<AggregationMethod, number>> = {};
  for (const method of methods) values[method] = methodValue(stats, method);
  return { start: stats.start, count: stats.count, values };
}

export function isAggregationMethod(text: string): text is AggregationMethod {
  return (AGGREGATION_METHODS as readonly string[]).includes(text);
}

export function isAggregationPeriod(text: string): text is AggregationPeriod {
  return Object.hasOwn(AGGREGATION_PERIODS, text);
}

/** A period's length in ms: a named period or an ISO 8601 duration; the reason it is refused otherwise. */
export function periodMs(text: string): { ok: true; ms: number } | { ok: false; reason: string } {
  if (isAggregationPeriod(text)) return { ok: true, ms: AGGREGATION_PERIODS[text] };
  return parseIsoDuration(text);
}

/** The longest value text read as a number: longer ones are skipped. */
export const MAX_NUMERIC_LENGTH = 40;

/**
 * A JSON number (RFC 8259: no leading `+`, no leading zeros, no surrounding
 * space) whose exponent has at most two digits: with at most 40 characters it
 * always fits a double, so no store ever fails to convert it. The storage layer
 * applies the same grammar in SQL; this is its reference.
 */
const NUMERIC = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$/;

export function isNumericValue(text: string): boolean {
  return text.length <= MAX_NUMERIC_LENGTH && NUMERIC.test(text);
}

export function bucketStart(epochMs: number, periodMs: number): number {
  return Math.floor(epochMs / periodMs) * periodMs;
}
