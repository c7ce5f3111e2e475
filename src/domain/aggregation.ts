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

export const AGGREGATION_PERIODS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type AggregationPeriod = keyof typeof AGGREGATION_PERIODS;

export interface Aggregation {
  method: AggregationMethod;
  period: AggregationPeriod;
  /** The bucket length in milliseconds. */
  periodMs: number;
}

/** One bucket: its start (epoch ms), how many numbers it holds, and the aggregate of them. */
export interface AggregateBucket {
  start: number;
  count: number;
  value: number;
}

export function isAggregationMethod(text: string): text is AggregationMethod {
  return (AGGREGATION_METHODS as readonly string[]).includes(text);
}

export function isAggregationPeriod(text: string): text is AggregationPeriod {
  return Object.hasOwn(AGGREGATION_PERIODS, text);
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
