import fs from 'node:fs';
import http from 'node:http';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { StoreKind } from '../lib/databases.js';
import { ensureDataset, type DatasetSize } from '../lib/datasets.js';
import { planAsset, STEP_MS, type DatasetInfo } from '../lib/generate.js';
import { getter, probe, summarize, type Latencies } from '../lib/probe.js';
import { dropMonthUnderUpdates, type ExpiryStall } from '../lib/expiry-stall.js';
import { startServer, type BenchServer } from '../lib/server.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * History at city scale (issue: history at city scale), on data sets built by
 * the bench generator at several sizes, SQLite and PostgreSQL. Per size: bytes
 * per reading (the readings table and its indexes over the readings it holds),
 * the p50 of the last 24 h of one attribute on distinct series, of an hourly
 * average over (up to) a year, of a daily average of 100 assets in one call, the p99
 * of concurrent updates while the data set's first month is dropped as expired, and the
 * generator's time when the data set had to be made. The p50s beside the sizes
 * give the growth curve: a query's cost must not grow with the history's length.
 *
 * Sizes: BENCH_HISTORY_SIZES, readings per data set separated by commas
 * (default 10000000,30000000,100000000; e.g. 200000 for a check run).
 * Assets: one per 500,000 readings (a year at the generator's step), at least 110.
 *
 * Per store, once: the export of an asset of 1,000,000 readings (a data set of
 * its own, EXPORT_SET), its rows per second and the server's peak RSS.
 * BENCH_HISTORY_ROWS=export measures the export alone (default: all).
 */

const DEFAULT_SIZES = [10_000_000, 30_000_000, 100_000_000];
const YEAR_MS = 365 * 86_400_000;
const SERIES = 100;

/** Two assets whose second (three signals and its TimeInstant) has 1,000,000 readings. */
const EXPORT_SET: DatasetSize = { assets: 2, readings: 1_500_000 };
const EXPORTED_ASSET = 1;

function sizes(): DatasetSize[] {
  const text = process.env.BENCH_HISTORY_SIZES;
  const readings = text ? text.split(',').map((t) => Number(t.trim())) : DEFAULT_SIZES;
  if (readings.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new Error(`BENCH_HISTORY_SIZES must be whole numbers separated by commas, got ${text}`);
  return readings.map((r) => ({ readings: r, assets: Math.max(110, Math.round(r / 500_000)) }));
}

interface Target {
  id: string;
  attr: string;
}

/** Public assets with a numeric attribute, spread over the data set. */
function targetsOf(info: DatasetInfo, count: number): Target[] {
  const out: Target[] = [];
  for (let i = 0; out.length < count && i < info.assets * 4; i++) {
    const plan = planAsset((i * 397) % info.assets, info.seed);
    if (plan.site.id === 'experimenters') continue;
    const numeric = plan.signals.find((s) => typeof s.value(plan.seed, info.end, plan.longitude) === 'number');
    if (numeric && !out.some((t) => t.id === plan.id)) out.push({ id: plan.id, attr: numeric.name });
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Bytes of the readings (tables, indexes, compressed values), over their count. */
async function bytesPerReading(server: BenchServer): Promise<{ bytes: number; readings: number }> {
  if (server.store === 'sqlite') {
    const db = new SQLite(server.databaseUrl.slice('sqlite:'.length), { readonly: true });
    try {
      const bytes = db.prepare(`select coalesce(sum(pgsize), 0) as n from dbstat where name = 'readings'
        or name in (select name from sqlite_master where tbl_name = 'readings')`).get() as { n: number };
      const count = db.prepare('select count(*) as n from readings').get() as { n: number };
      return { bytes: Number(bytes.n), readings: Number(count.n) };
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  try {
    // The table of recent readings and the blocks of the packed ones (src/storage/postgres/reading-blocks.ts), with their indexes and compressed values.
    const size = await client.query(`select coalesce(sum(pg_total_relation_size(c.oid)), 0) as n from pg_class c
      where c.relname in ('readings', 'reading_blocks') or c.oid in (select inhrelid from pg_inherits where inhparent = 'readings'::regclass)`);
    const count = await client.query('select (select count(*) from readings) + (select coalesce(sum(n), 0) from reading_blocks) as n');
    return { bytes: Number(size.rows[0].n), readings: Number(count.rows[0].n) };
  } finally {
    await client.end();
  }
}

/** The server's resident memory, from /proc (Linux), in bytes; 0 elsewhere. */
function rssOf(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface ExportFigures {
  rows: number;
  ms: number;
  peakRss: number;
  rssBefore: number;
}

/** Exports a whole asset's history, counting lines, sampling the server's RSS (before, and its peak during the export). */
async function exportOnce(server: BenchServer, id: string): Promise<ExportFigures> {
  const url = new URL(`${server.url}/datasource/${id}/export`);
  const rssBefore = rssOf(server.pid);
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssOf(server.pid));
  }, 20);
  const started = performance.now();
  try {
    const rows = await new Promise<number>((resolve, reject) => {
      const req = http.get({ host: url.hostname, port: url.port, path: url.pathname, headers: { accept: 'application/x-ndjson' } }, (res) => {
        let lines = 0;
        res.on('data', (chunk: Buffer) => {
          for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
        });
        res.on('end', () => (res.statusCode === 200 ? resolve(lines) : reject(new Error(`export: ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.setTimeout(600_000, () => req.destroy(new Error('export: timeout')));
      req.on('error', reject);
    });
    return { rows, ms: performance.now() - started, peakRss, rssBefore };
  } finally {
    clearInterval(sampler);
  }
}

/** The second of two exports of the asset (the first warms the server up), with the peak RSS of both. */
async function exportTwice(server: BenchServer, id: string): Promise<ExportFigures> {
  const first = await exportOnce(server, id);
  const second = await exportOnce(server, id);
  return { ...second, peakRss: Math.max(first.peakRss, second.peakRss), rssBefore: first.rssBefore };
}

interface SizeFigures {
  size: DatasetSize;
  generatorMs: number | undefined;
  bytes: number;
  readings: number;
  last24h: Latencies;
  hourlyYear: Latencies;
  daily100: Latencies;
  expiry: ExpiryStall;
}

async function measure(store: StoreKind, size: DatasetSize): Promise<SizeFigures> {
  const { generatorMs, info, ...queries } = await measureQueries(store, size);
  // On a server of its own: it drops readings of its copy of the data set.
  const expiry = await dropMonthUnderUpdates(store, size, info);
  return { generatorMs, ...queries, expiry };
}

async function measureQueries(store: StoreKind, size: DatasetSize): Promise<Omit<SizeFigures, 'expiry'> & { info: DatasetInfo }> {
  const started = performance.now();
  let generated = false;
  const info = await ensureDataset(store, size, { log: (line) => {
    generated ||= /generated in/.test(line);
    process.stderr.write(`${line}\n`);
  } });
  const generatorMs = generated ? performance.now() - started : undefined;
  const targets = targetsOf(info, Math.max(SERIES, 200));
  const server = await startServer({ store, dataset: size });
  const client = getter(server.url);
  try {
    const { bytes, readings } = await bytesPerReading(server);
    const day = 86_400_000;
    const target = (i: number) => targets[i % targets.length] as Target;
    // Every request's range ends a millisecond later than the last one's: no answer is kept from an earlier one.
    const end = (i: number) => iso(info.end + STEP_MS + i);
    const last24h = await probe((i) => client.get(`/datasource/${target(i).id}/${target(i).attr}/readings?from=${iso(info.end - day)}&to=${end(i)}&limit=1000`),
      { warmup: 20, maxRequests: 1000 });
    const yearFrom = iso(Math.max(info.start, info.end - YEAR_MS));
    const hourlyYear = await probe((i) => client.get(`/datasource/${target(i).id}/${target(i).attr}/readings?from=${yearFrom}&to=${end(i)}&aggrMethod=avg&aggrPeriod=PT1H&limit=1000`),
      { warmup: 5, maxRequests: 200 });
    // A hundred assets recording the same attribute, in one call.
    const attr = (targets[0] as Target).attr;
    const same = targets.filter((t) => t.attr === attr).slice(0, SERIES).map((t) => t.id).join(',');
    const daily100 = await probe((i) => client.get(`/datasource/readings?attr=${attr}&assets=${same}&from=${yearFrom}&to=${end(i)}&aggrMethod=avg&aggrPeriod=P1D`),
      { warmup: 2, maxRequests: 50 });
    return { size, generatorMs, info, bytes, readings, last24h, hourlyYear, daily100 };
  } finally {
    client.close();
    await server.close();
  }
}

const none: LoadResult = { rps: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, requests: 0, errors: 0 };
const millions = (n: number) => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })}M`;

function rows(label: string, f: SizeFigures): ResultRow[] {
  const at = `${millions(f.readings)} readings, ${label}`;
  const perReading = f.readings > 0 ? f.bytes / f.readings : 0;
  const out: ResultRow[] = [
    {
      name: `bytes per reading, index included: ${perReading.toFixed(1)} (${(f.bytes / 2 ** 20).toFixed(0)} MiB), ${at}`,
      result: none, baselineName: 'goal', baseline: none, goal: '<= 40 bytes a reading', met: perReading > 0 && perReading <= 40,
    },
    {
      name: `last 24 h of one attribute, distinct series, ${at}`,
      result: f.last24h.result, baselineName: '-', baseline: none, goal: 'p50 < 5 ms', met: f.last24h.result.p50Ms < 5 && f.last24h.result.errors === 0,
    },
    {
      name: `hourly average over a year (or the whole history) of one attribute, ${at}`,
      result: f.hourlyYear.result, baselineName: '-', baseline: none, goal: 'p50 < 20 ms', met: f.hourlyYear.result.p50Ms < 20 && f.hourlyYear.result.errors === 0,
    },
    {
      name: `daily average over a year, ${SERIES} assets in one call, ${at}`,
      result: f.daily100.result, baselineName: '-', baseline: none, goal: 'p50 < 100 ms', met: f.daily100.result.p50Ms < 100 && f.daily100.result.errors === 0,
    },
    {
      name: `dropping a month of expired readings (${f.expiry.dropped.toLocaleString('en-US')} in ${(f.expiry.dropMs / 1000).toFixed(1)} s`
        + `${f.expiry.whole ? '' : ', cut short'}): concurrent updates, 8 connections, ${at}`,
      result: f.expiry.updates.result, baselineName: '-', baseline: none, goal: 'p99 of concurrent updates <= 100 ms',
      met: f.expiry.whole && f.expiry.updates.result.p99Ms <= 100 && f.expiry.updates.result.errors === 0,
    },
  ];
  if (f.generatorMs !== undefined) {
    out.push({
      name: `bench generator: ${millions(f.size.readings)} readings in ${(f.generatorMs / 1000).toFixed(0)} s, ${label}`,
      result: summarize([f.generatorMs]).result, baselineName: '-', baseline: none, goal: 'reported; finishes', met: true,
    });
  }
  return out;
}

/** The export of the asset of EXPORT_SET, on a server that answered nothing before: its memory is the export's. */
async function measureExport(store: StoreKind): Promise<ExportFigures> {
  const info = await ensureDataset(store, EXPORT_SET, { log: (line) => process.stderr.write(`${line}\n`) });
  const server = await startServer({ store, dataset: EXPORT_SET });
  try {
    return await exportTwice(server, planAsset(EXPORTED_ASSET, info.seed).id);
  } finally {
    await server.close();
  }
}

function exportRow(label: string, f: ExportFigures): ResultRow {
  const rate = f.ms > 0 ? Math.round(f.rows / (f.ms / 1000)) : 0;
  return {
    name: `export of one asset's whole history, ${f.rows.toLocaleString('en-US')} readings, at ${rate.toLocaleString('en-US')} rows/s (NDJSON), `
      + `server RSS peak ${(f.peakRss / 2 ** 20).toFixed(0)} MiB (${(f.rssBefore / 2 ** 20).toFixed(0)} MiB before; a server that answered nothing before; the second of two exports), ${label}`,
    result: summarize([f.ms]).result, baselineName: '-', baseline: none,
    goal: '>= 500,000 rows/s, RSS < 150 MiB', met: rate >= 500_000 && f.peakRss < 150 * 2 ** 20,
  };
}

const history: Scenario = {
  name: 'history',
  description: 'History at city scale on generated data sets (BENCH_HISTORY_SIZES readings, default 10M, 30M and 100M; SQLite and '
    + 'PostgreSQL): bytes per reading with indexes, p50 of the last 24 h of one attribute, of an hourly average over a year, of a '
    + 'daily average of 100 assets in one call (one request at a time), the p99 of concurrent updates while a month of expired readings is dropped, '
    + 'and the generator\'s time when a data set was made; per store, the export of an asset of 1,000,000 readings (rows/s, server RSS). Read the p50s across sizes as the growth curve. Federation updates/s: the federation scenario.',
  async run(): Promise<ResultRow[]> {
    const only = process.env.BENCH_HISTORY_ROWS ?? 'all';
    if (only !== 'all' && only !== 'export') throw new Error(`BENCH_HISTORY_ROWS=${only}: expected all or export`);
    const stores = (process.env.BENCH_HISTORY_STORES ?? 'sqlite,postgres').split(',');
    if (stores.some((s) => s !== 'sqlite' && s !== 'postgres')) throw new Error(`BENCH_HISTORY_STORES=${stores.join(',')}: expected sqlite, postgres or both`);
    const out: ResultRow[] = [];
    for (const store of (['sqlite', 'postgres'] as const).filter((s) => stores.includes(s))) {
      const label = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
      if (only === 'all') for (const size of sizes()) out.push(...rows(label, await measure(store, size)));
      out.push(exportRow(label, await measureExport(store)));
    }
    return out;
  },
};

export default history;
