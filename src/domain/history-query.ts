/**
 * The query parameters of the datasource readings endpoints, read into one
 * checked request (DESIGN.md, "Datasource"). Every rejection is a 400 whose
 * description names the parameter.
 */
import {
  AGGREGATION_METHODS, AGGREGATION_PERIODS, isAggregationMethod, periodMs, type Aggregation, type AggregationMethod,
} from './aggregation.js';
import { DATE_EXAMPLES, parseIsoDate } from './history-dates.js';
import type { Page } from './page.js';
import { invalidParameter as invalid } from './query-parameter.js';
import { wholeNumberWithin } from './whole-number.js';

export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 1000;

/** Both bounds inclusive, epoch ms. */
export interface TimeRange {
  from: number;
  to: number;
}

/**
 * The time readings are ordered, filtered and bucketed by: when the platform
 * received them (the default, as the spec has it), or the TimeInstant a site
 * observed them at (`timeIndex=observed`).
 */
export const TIME_INDEXES = ['received', 'observed'] as const;
export type TimeIndex = (typeof TIME_INDEXES)[number];

/** Which readings of the (filtered) history: a page from the oldest, or the newest N. */
export type Selection =
  | ({ kind: 'page' } & Page)
  | { kind: 'newest'; count: number };

/**
 * Readings (or their values only), or buckets of aggregated values, where the
 * page counts buckets. `range` is undefined unless both `from` and `to` were given.
 */
export type HistoryQuery = ReadingsQuery | AggregatesQuery;
export interface ReadingsQuery { kind: 'readings'; range: TimeRange | undefined; selection: Selection; valuesOnly: boolean }
export interface AggregatesQuery { kind: 'aggregates'; range: TimeRange | undefined; aggregation: Aggregation; page: Page }

/** `readings` of a whole asset, or of one attribute (where `values` and aggregation apply). */
export type HistoryScope = 'asset' | 'attribute';

export type RawQuery = Readonly<Record<string, string | undefined>>;

/** A whole number within [min, max] (the rule of whole-number.ts); undefined when absent. */
function wholeNumber(raw: RawQuery, name: string, min: number, max: number): number | undefined {
  const text = raw[name];
  if (text === undefined) return undefined;
  const n = wholeNumberWithin(text, min, max);
  if (n === undefined) {
    throw invalid(name, max === Number.MAX_SAFE_INTEGER ? `must be a whole number >= ${min}` : `must be a whole number from ${min} to ${max}`);
  }
  return n;
}

function date(raw: RawQuery, name: 'from' | 'to'): number | undefined {
  const text = raw[name];
  if (text === undefined) return undefined;
  const ms = parseIsoDate(text);
  if (ms === undefined) throw invalid(name, `must be an ISO 8601 date such as ${DATE_EXAMPLES}`);
  return ms;
}

/** Present without a value, `true` or `1` set the flag; `false` or `0` leave it unset. */
function flag(raw: RawQuery, name: string): boolean {
  const text = raw[name];
  if (text === undefined) return false;
  const t = text.toLowerCase();
  if (t === '' || t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  throw invalid(name, 'must be true or false');
}

function aggregation(raw: RawQuery, scope: HistoryScope): Aggregation | undefined {
  const method = raw.aggrMethod;
  const period = raw.aggrPeriod;
  if (method === undefined && period === undefined) return undefined;
  if (scope === 'asset') throw invalid(method !== undefined ? 'aggrMethod' : 'aggrPeriod', 'aggregation applies to one attribute: use /{assetId}/{attr}/readings');
  if (method === undefined) throw invalid('aggrMethod', `is required with 'aggrPeriod' (one of ${AGGREGATION_METHODS.join(', ')})`);
  const methods = [...new Set(method.split(',').map((m) => m.trim()))];
  const unknown = methods.find((m) => !isAggregationMethod(m));
  if (unknown !== undefined) {
    throw invalid('aggrMethod', `must be one of ${AGGREGATION_METHODS.join(', ')}, or several of them separated by commas`);
  }
  const periods = `${Object.keys(AGGREGATION_PERIODS).join(', ')} or an ISO 8601 duration such as PT15M, PT6H, P1D or P7D`;
  if (period === undefined) throw invalid('aggrPeriod', `is required with 'aggrMethod' (${periods})`);
  const length = periodMs(period);
  if (!length.ok) throw invalid('aggrPeriod', `must be ${periods}: ${JSON.stringify(period.slice(0, 40))} ${length.reason}`);
  const [first, ...more] = methods as AggregationMethod[];
  const aggregation: Aggregation = { method: first as AggregationMethod, period, periodMs: length.ms };
  return more.length > 0 ? { ...aggregation, methods: methods as AggregationMethod[] } : aggregation;
}

/** `timeIndex`, read apart from the rest: it applies to every history answer alike. */
export function timeIndexOf(raw: RawQuery): TimeIndex {
  const text = raw.timeIndex;
  if (text === undefined) return 'received';
  if (!(TIME_INDEXES as readonly string[]).includes(text)) throw invalid('timeIndex', `must be one of ${TIME_INDEXES.join(', ')}`);
  return text as TimeIndex;
}

/** A whole asset's readings are never aggregated: that scope always gives a ReadingsQuery. */
export function parseHistoryQuery(raw: RawQuery, scope: 'asset'): ReadingsQuery;
export function parseHistoryQuery(raw: RawQuery, scope: HistoryScope): HistoryQuery;
export function parseHistoryQuery(raw: RawQuery, scope: HistoryScope): HistoryQuery {
  // Each bound is checked even alone, but the filter applies only when both are given (spec part D).
  const from = date(raw, 'from');
  const to = date(raw, 'to');
  if (from !== undefined && to !== undefined && from > to) throw invalid('from', `is after 'to'`);
  const range = from !== undefined && to !== undefined ? { from, to } : undefined;

  const limit = wholeNumber(raw, 'limit', 1, MAX_LIMIT);
  const offset = wholeNumber(raw, 'offset', 0, Number.MAX_SAFE_INTEGER);
  const lastN = wholeNumber(raw, 'lastN', 1, MAX_LIMIT);
  const agg = aggregation(raw, scope);

  const valuesOnly = flag(raw, 'values');
  if (valuesOnly && scope === 'asset') throw invalid('values', 'applies to one attribute: use /{assetId}/{attr}/readings');
  if (valuesOnly && agg) throw invalid('values', `cannot be combined with 'aggrMethod'`);

  const page = { limit: limit ?? DEFAULT_LIMIT, offset: offset ?? 0 };
  if (agg) {
    if (lastN !== undefined) throw invalid('lastN', `cannot be combined with 'aggrMethod'`);
    return { kind: 'aggregates', range, aggregation: agg, page };
  }
  if (lastN === undefined) return { kind: 'readings', range, selection: { kind: 'page', ...page }, valuesOnly };
  if (limit !== undefined || offset !== undefined) throw invalid('lastN', `cannot be combined with '${limit !== undefined ? 'limit' : 'offset'}'`);
  return { kind: 'readings', range, selection: { kind: 'newest', count: lastN }, valuesOnly };
}
