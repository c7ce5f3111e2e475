import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { adminQuery, postgresUrlOf, type StoreKind } from '../lib/databases.js';
import { datasetKey, ensureDataset, POSTGRES_DATASET_PREFIX, type DatasetSize } from '../lib/datasets.js';
import { planAsset, STEP_MS, type DatasetInfo } from '../lib/generate.js';
import { load, type RequestSpec } from '../lib/load.js';
import { freePort, spawnChild, waitUntilAnswering } from '../lib/processes.js';
import { getter, probe, type Latencies } from '../lib/probe.js';
import { startServer } from '../lib/server.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * The datasource read path (issue: datasource interface), on a generated city of
 * 1,000 assets and 10,000,000 readings, SQLite and PostgreSQL:
 * - one attribute, 1,000 and 100 readings of a time range, 32 connections, against
 *   a bare node:http server answering a body of the same size: the same 200 ranges
 *   asked again and again (a dashboard's pattern), and ranges never asked before;
 * - a 1,000-reading request one at a time on distinct ranges, its p50 as a ratio
 *   to the raw range query (better-sqlite3 / pg, in this process) on distinct
 *   ranges, measured in the same run;
 * - an hourly average over 7 distinct days, one request at a time (p50 < 5 ms).
 */

const SIZE: DatasetSize = { assets: 1000, readings: 10_000_000 };
const CONNECTIONS = 32;
/** Asset and attribute pairs the load cycles through. */
const TARGETS = 200;

interface Target {
  id: string;
  attr: string;
}

/** Public assets (experiment assets need a token) with a numeric attribute, spread over the data set. */
function targetsOf(info: DatasetInfo): Target[] {
  const out: Target[] = [];
  for (let i = 0; out.length < TARGETS && i < info.assets * 4; i++) {
    const plan = planAsset((i * 397) % info.assets, info.seed);
    if (plan.site.id === 'experimenters') continue;
    const numeric = plan.signals.find((s) => typeof s.value(plan.seed, info.end, plan.longitude) === 'number');
    if (numeric) out.push({ id: plan.id, attr: numeric.name });
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The newest `count` steps of history (and a little more: readings arrive up to 1.5 s late). */
function window(info: DatasetInfo, count: number): { from: number; to: number } {
  return { from: info.end - (count + 1) * STEP_MS, to: info.end + STEP_MS };
}

const rangePath = (t: Target, w: { from: number; to: number }, extra: string) =>
  `/datasource/${t.id}/${t.attr}/readings?from=${iso(w.from)}&to=${iso(w.to)}${extra}`;

/** `w` moved `back` steps into the past: as many readings, none the same at the edges. */
const movedBack = (w: { from: number; to: number }, back: number) => ({ from: w.from - back * STEP_MS, to: w.to - back * STEP_MS });

/**
 * Request i of a run where no range is asked twice (until every target has
 * been asked at every one of `shifts` positions): the cost of reading and
 * rendering, with nothing kept from an earlier answer.
 */
function distinctRanges(targets: Target[], w: { from: number; to: number }, shifts: number, extra: string): (i: number) => string {
  return (i) => rangePath(targets[i % targets.length] as Target, movedBack(w, 1 + (Math.floor(i / targets.length) % shifts)), extra);
}

interface RawQuery {
  /** The same range query our store runs for one attribute, straight on the driver. */
  range(seq: number, attr: string, from: number, to: number, limit: number): Promise<number> | number;
  seqOf(id: string): Promise<number> | number;
  close(): Promise<void> | void;
}

const RANGE_SQL = `select recv_time, type_id, attr_value from readings
  where asset_seq = $1 and name_id = (select id from reading_terms where term = $2) and recv_time >= $3 and recv_time <= $4 order by recv_time, seq limit $5`;

function rawSqlite(databaseUrl: string): RawQuery {
  const db = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
  const range = db.prepare(RANGE_SQL.replace(/\$\d/g, '?'));
  const seq = db.prepare('select seq from assets where id = ?').pluck();
  return {
    range: (s, attr, from, to, limit) => range.all(s, attr, from, to, limit).length,
    seqOf: (id) => Number(seq.get(id)),
    close: () => {
      db.close();
    },
  };
}

async function rawPostgres(databaseUrl: string): Promise<RawQuery> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  return {
    range: async (s, attr, from, to, limit) => (await client.query({ name: 'range', text: RANGE_SQL, values: [s, attr, from, to, limit] })).rowCount ?? 0,
    seqOf: async (id) => Number((await client.query('select seq from assets where id = $1', [id])).rows[0]?.seq),
    close: () => client.end(),
  };
}

interface StoreFigures {
  range1000: LoadResult;
  range100: LoadResult;
  distinct1000: LoadResult;
  distinct100: LoadResult;
  bare1000: LoadResult;
  bare100: LoadResult;
  latency1000: Latencies;
  raw1000: Latencies;
  hourly: Latencies;
}

/**
 * A live PostgreSQL database has its visibility map kept by autovacuum, which
 * index-only scans rely on; a freshly bulk-loaded one has none until then. The
 * cached data set is vacuumed once (a no-op afterwards) so that every clone
 * starts in that steady state.
 */
async function vacuumPostgresDataset(): Promise<void> {
  const name = `${POSTGRES_DATASET_PREFIX}${datasetKey(SIZE)}`.toLowerCase();
  await adminQuery('vacuum (analyze) readings', postgresUrlOf(name));
}

async function measureStore(store: StoreKind): Promise<StoreFigures> {
  const info = await ensureDataset(store, SIZE);
  if (store === 'postgres') await vacuumPostgresDataset();
  if (info.updatesPerAsset < 1000) throw new Error(`the data set has ${info.updatesPerAsset} updates per asset, fewer than the 1,000 readings a request needs`);
  const targets = targetsOf(info);
  const w1000 = window(info, 1000);
  const w100 = window(info, 100);
  const week = { from: info.end - 7 * 86_400_000, to: info.end + STEP_MS };
  const paths1000 = targets.map((t) => rangePath(t, w1000, ''));
  const paths100 = targets.map((t) => rangePath(t, w100, '&limit=100'));
  // Moved back by up to the history's length less the range's, so every moved range still holds its readings.
  const shifts = info.updatesPerAsset - 1000 - 3;
  const distinct1000 = distinctRanges(targets, w1000, shifts, '');
  const distinct100 = distinctRanges(targets, w100, shifts, '&limit=100');
  const distinctHourly = distinctRanges(targets, week, Math.min(shifts, info.updatesPerAsset - 7 * 288 - 3), '&aggrMethod=avg&aggrPeriod=hour');
  const requests = (paths: string[]): RequestSpec[] => paths.map((path) => ({ path }));

  const server = await startServer({ store, dataset: SIZE });
  const client = getter(server.url);
  try {
    // The responses really hold what the figures claim.
    const sample = await fetch(`${server.url}${paths1000[0]}`);
    const sampleBody = await sample.text();
    const count = (JSON.parse(sampleBody) as { readings: unknown[] }).readings.length;
    if (sample.status !== 200 || count !== 1000) throw new Error(`expected 1,000 readings, got ${sample.status} with ${count}`);
    const sample100 = await (await fetch(`${server.url}${paths100[0]}`)).text();

    const range1000 = await load({ url: server.url, requests: requests(paths1000), connections: CONNECTIONS });
    const range100 = await load({ url: server.url, requests: requests(paths100), connections: CONNECTIONS });
    const moved1000 = await load({ url: server.url, requests: (i) => ({ path: distinct1000(i) }), connections: CONNECTIONS });
    const moved100 = await load({ url: server.url, requests: (i) => ({ path: distinct100(i) }), connections: CONNECTIONS });
    const bare1000 = await bare(sampleBody, paths1000);
    const bare100 = await bare(sample100, paths100);

    // One at a time, on ranges the loads above did not ask: each answer is read and rendered.
    const unasked = 1_000_000;
    const latency1000 = await probe((i) => client.get(distinct1000(unasked + i)));
    const hourly = await probe((i) => client.get(distinctHourly(i)));

    const raw = store === 'sqlite' ? rawSqlite(server.databaseUrl) : await rawPostgres(server.databaseUrl);
    let raw1000: Latencies;
    try {
      const seqs: number[] = [];
      for (const t of targets) seqs.push(await raw.seqOf(t.id));
      raw1000 = await probe(async (i) => {
        const k = i % targets.length;
        const w = movedBack(w1000, 1 + (Math.floor(i / targets.length) % shifts));
        return (await raw.range(seqs[k] as number, (targets[k] as Target).attr, w.from, w.to, 1000)) === 1000;
      });
    } finally {
      await raw.close();
    }
    return { range1000, range100, distinct1000: moved1000, distinct100: moved100, bare1000, bare100, latency1000, raw1000, hourly };
  } finally {
    client.close();
    await server.close();
  }
}

/**
 * The HTTP ceiling: a bare node:http server answering the same body (read from
 * a file: a 150 KB body does not fit in an environment variable).
 */
const BARE_FILE_SERVER = `
const http = require('node:http');
const body = require('node:fs').readFileSync(process.env.BARE_BODY_FILE);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };
http.createServer((req, res) => {
  if (req.url === '/__ready') { res.writeHead(200); res.end(); return; }
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, headers); res.end(body); });
}).listen(Number(process.env.BARE_PORT), '127.0.0.1');
`;

async function bare(body: string, paths: string[]): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-bare-'));
  const file = path.join(dir, 'body.json');
  fs.writeFileSync(file, body);
  const port = await freePort();
  const child = spawnChild(process.execPath, ['-e', BARE_FILE_SERVER], { PATH: process.env.PATH, BARE_PORT: String(port), BARE_BODY_FILE: file });
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitUntilAnswering(`${url}/__ready`, child, { timeoutMs: 10_000 });
    return await load({ url, requests: paths.map((p) => ({ path: p })), connections: CONNECTIONS });
  } finally {
    await child.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function rows(label: string, f: StoreFigures): ResultRow[] {
  const p50Ratio = f.raw1000.result.p50Ms > 0 ? f.latency1000.result.p50Ms / f.raw1000.result.p50Ms : 0;
  return [
    {
      name: `1,000 readings of one attribute, ${TARGETS} ranges asked again and again, ${label} (${CONNECTIONS} conns)`,
      result: f.range1000, baselineName: 'bare node:http, same body', baseline: f.bare1000,
      goal: '>= 1,500/s', met: f.range1000.rps >= 1500 && f.range1000.errors === 0,
    },
    {
      name: `100 readings of one attribute, ${TARGETS} ranges asked again and again, ${label} (${CONNECTIONS} conns)`,
      result: f.range100, baselineName: 'bare node:http, same body', baseline: f.bare100,
      goal: '>= 5,000/s', met: f.range100.rps >= 5000 && f.range100.errors === 0,
    },
    {
      name: `1,000 readings of one attribute, every range distinct, ${label} (${CONNECTIONS} conns)`,
      result: f.distinct1000, baselineName: 'bare node:http, same body', baseline: f.bare1000,
      goal: 'reported; no errors', met: f.distinct1000.errors === 0,
    },
    {
      name: `100 readings of one attribute, every range distinct, ${label} (${CONNECTIONS} conns)`,
      result: f.distinct100, baselineName: 'bare node:http, same body', baseline: f.bare100,
      goal: 'reported; no errors', met: f.distinct100.errors === 0,
    },
    {
      name: `1,000 readings, one request at a time, every range distinct, ${label}`,
      result: f.latency1000.result, baselineName: `raw range query (${label === 'SQLite' ? 'better-sqlite3' : 'pg'}, in process)`, baseline: f.raw1000.result,
      goal: `p50 reported: ${p50Ratio.toFixed(1)}x the raw query`, met: f.latency1000.result.errors === 0 && f.raw1000.result.errors === 0,
    },
    {
      name: `hourly average over 7 days, one request at a time, every week distinct, ${label}`,
      result: f.hourly.result, baselineName: 'raw range query, 1,000 readings', baseline: f.raw1000.result,
      goal: 'p50 < 5 ms', met: f.hourly.result.p50Ms < 5 && f.hourly.result.errors === 0,
    },
  ];
}

const datasource: Scenario = {
  name: 'datasource',
  description: 'Datasource reads on 1,000 assets and 10,000,000 readings (SQLite and PostgreSQL): time ranges of one attribute '
    + 'under 32 connections against bare node:http with the same body, both the same 200 ranges asked again and again (answered '
    + 'from kept answers, checked by a count of the range) and ranges never asked before; one request at a time on distinct '
    + 'ranges against the raw range query on distinct ranges, measured in the same run (rps of one-at-a-time rows = 1 / mean '
    + 'latency); hourly averages over distinct 7-day windows.',
  async run(): Promise<ResultRow[]> {
    const sqlite = await measureStore('sqlite');
    const postgres = await measureStore('postgres');
    return [...rows('SQLite', sqlite), ...rows('PostgreSQL', postgres)];
  },
};

export default datasource;
