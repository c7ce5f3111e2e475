import { type Api, ApiError } from './api';
import { chartValue } from './format';

/** Loads one attribute's history from the datasource, raw for a day, hourly averages beyond. */

export type RangeKey = '24h' | '7d' | '30d';

export const RANGES: { key: RangeKey; label: string; hours: number }[] = [
  { key: '24h', label: 'Last 24 h', hours: 24 },
  { key: '7d', label: '7 days', hours: 24 * 7 },
  { key: '30d', label: '30 days', hours: 24 * 30 },
];

export interface Series {
  /** Seconds since the epoch, ascending. */
  x: number[];
  y: (number | null)[];
  aggregated: boolean;
  /** The readings went on past what one view loads. */
  truncated: boolean;
}

const PAGE = 1000;
const MAX_PAGES = 5;

async function raw(api: Api, assetId: string, attr: string, from: Date, to: Date, signal: AbortSignal): Promise<Series> {
  const x: number[] = [];
  const y: (number | null)[] = [];
  let truncated = false;
  for (let page = 0; page < MAX_PAGES; page++) {
    const readings = await api.readings(assetId, attr, from, to, page * PAGE, signal);
    for (const r of readings) {
      const t = Date.parse(r.recvTime);
      const v = chartValue(r.attrValue);
      if (Number.isNaN(t) || v === null) continue;
      x.push(t / 1000);
      y.push(v);
    }
    if (readings.length < PAGE) break;
    truncated = page === MAX_PAGES - 1;
  }
  return { x, y, aggregated: false, truncated };
}

async function hourly(api: Api, assetId: string, attr: string, from: Date, to: Date, signal: AbortSignal): Promise<Series> {
  const aggregates = await api.aggregates(assetId, attr, from, to, 'hour', signal);
  const rows = aggregates
    .map((a) => ({ t: Date.parse(a.start) / 1000, v: a.count > 0 && a.value !== null && Number.isFinite(Number(a.value)) ? Number(a.value) : null }))
    .filter((r) => !Number.isNaN(r.t))
    .sort((a, b) => a.t - b.t);
  return { x: rows.map((r) => r.t), y: rows.map((r) => r.v), aggregated: true, truncated: false };
}

/** Booleans are never averaged (the datasource aggregates numbers only): their changes are the point. */
export async function loadSeries(api: Api, assetId: string, attr: string, range: RangeKey, boolean: boolean, signal: AbortSignal, now = new Date()): Promise<Series> {
  const hours = RANGES.find((r) => r.key === range)?.hours ?? 24;
  const from = new Date(now.getTime() - hours * 3600_000);
  if (hours <= 24 || boolean) return raw(api, assetId, attr, from, now, signal);
  try {
    return await hourly(api, assetId, attr, from, now, signal);
  } catch (err) {
    // A datasource without aggregation still answers with raw readings.
    if (err instanceof ApiError && err.status === 400) return raw(api, assetId, attr, from, now, signal);
    throw err;
  }
}
