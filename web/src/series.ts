import { type Api, ApiError } from './api';
import { chartValue } from './format';
import { settings } from './settings';

/**
 * Loads one attribute's history from the datasource over any range: raw readings over two days at
 * most, beyond that the datasource's means per the shortest period it offers that fits the range
 * in one request (hours up to some six weeks, days beyond), so a year draws in one request.
 */

export type Resolution = 'raw' | 'minute' | 'hour' | 'day';

export interface Series {
  /** Seconds since the epoch, ascending. */
  x: number[];
  y: (number | null)[];
  resolution: Resolution;
  /** The readings went on past what one view loads. */
  truncated: boolean;
}

const RAW_SPAN_MS = 2 * 24 * 3600_000;
const PERIOD_MS: Record<string, number> = { minute: 60_000, hour: 3600_000, day: 86_400_000 };
const MAX_PAGES = 5;

/** The period to aggregate a range by, or null for raw readings. */
export function resolutionFor(from: number, to: number, boolean: boolean, offered = settings().aggregationPeriods, perRequest = settings().maxReadingsPerPage): Resolution {
  // Booleans are never averaged (the datasource aggregates numbers only): their changes are the point.
  if (boolean || to - from <= RAW_SPAN_MS) return 'raw';
  const fits = offered
    .filter((p) => PERIOD_MS[p] !== undefined && p !== 'minute')
    .sort((a, b) => PERIOD_MS[a]! - PERIOD_MS[b]!)
    .find((p) => (to - from) / PERIOD_MS[p]! <= perRequest);
  return (fits as Resolution | undefined) ?? 'day';
}

async function raw(api: Api, assetId: string, attr: string, from: Date, to: Date, signal: AbortSignal): Promise<Series> {
  const x: number[] = [];
  const y: (number | null)[] = [];
  const page = settings().maxReadingsPerPage;
  let truncated = false;
  for (let n = 0; n < MAX_PAGES; n++) {
    const readings = await api.readings(assetId, attr, from, to, n * page, page, signal);
    for (const r of readings) {
      const t = Date.parse(r.recvTime);
      const v = chartValue(r.attrValue);
      if (Number.isNaN(t) || v === null) continue;
      x.push(t / 1000);
      y.push(v);
    }
    if (readings.length < page) break;
    truncated = n === MAX_PAGES - 1;
  }
  return { ...withGaps(x, y, 0), resolution: 'raw', truncated };
}

/**
 * A silence well beyond the asset's usual spacing becomes a gap in the line, not a slope across it
 * (an asset reporting every two hours leaves every other hourly bucket empty: that is no gap).
 */
export function withGaps(xs: number[], ys: (number | null)[], minStep: number): { x: number[]; y: (number | null)[] } {
  const spacings = xs.slice(1).map((t, i) => t - xs[i]!).sort((a, b) => a - b);
  const usual = Math.max(minStep, spacings[Math.floor(spacings.length / 2)] ?? 0);
  const x: number[] = [];
  const y: (number | null)[] = [];
  xs.forEach((t, i) => {
    const last = x[x.length - 1];
    if (last !== undefined && usual > 0 && t - last > usual * 3) { x.push(last + usual); y.push(null); }
    x.push(t);
    y.push(ys[i] ?? null);
  });
  return { x, y };
}

async function means(api: Api, assetId: string, attr: string, from: Date, to: Date, period: Exclude<Resolution, 'raw'>, signal: AbortSignal): Promise<Series> {
  const aggregates = await api.aggregates(assetId, attr, from, to, period, settings().maxReadingsPerPage, signal);
  const rows = aggregates
    .map((a) => ({ t: Date.parse(a.start) / 1000, v: a.count > 0 && a.value !== null && Number.isFinite(Number(a.value)) ? Number(a.value) : null }))
    .filter((r) => !Number.isNaN(r.t))
    .sort((a, b) => a.t - b.t);
  return { ...withGaps(rows.map((r) => r.t), rows.map((r) => r.v), PERIOD_MS[period]! / 1000), resolution: period, truncated: false };
}

export async function loadSeries(api: Api, assetId: string, attr: string, from: number, to: number, boolean: boolean, signal: AbortSignal): Promise<Series> {
  const resolution = resolutionFor(from, to, boolean);
  const start = new Date(from);
  const end = new Date(to);
  if (resolution === 'raw') return raw(api, assetId, attr, start, end, signal);
  try {
    return await means(api, assetId, attr, start, end, resolution, signal);
  } catch (err) {
    // A datasource without aggregation still answers with raw readings.
    if (err instanceof ApiError && err.status === 400) return raw(api, assetId, attr, start, end, signal);
    throw err;
  }
}
