import fs from 'node:fs';
import { startBareServer } from '../lib/baseline.js';
import { measurePair } from '../lib/compare.js';
import { adminQuery, type StoreKind } from '../lib/databases.js';
import { startDiscoveryFloor, type DiscoveryFloor } from '../lib/discovery-floor.js';
import { planAsset } from '../lib/generate.js';
import { load, type RequestSpec } from '../lib/load.js';
import { startServer, type BenchServer } from '../lib/server.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * Discovery reads on a generated city of 1,000,000 assets over 10 sites (issue:
 * discovery interface), on SQLite and PostgreSQL: a page of assets (one hot
 * URL, idle and while a live city pushes updates, and distinct URLs), one
 * asset, a 500 m geo search around real Santander positions, and the sites with
 * their counts; then the server's peak memory.
 * Each load is compared with a bare node:http server answering the very same
 * bytes, measured in the same run.
 */

const CONNECTIONS = 32;
const DATASET = { assets: 1_000_000, readings: 10_000_000 };
const BASE = '/discovery/v0';
const STRIDE = 7919;

interface Probe {
  name: string;
  goal: string;
  /** Concurrent connections (default CONNECTIONS). */
  connections?: number;
  met: (r: LoadResult) => boolean;
  /** The i-th request (a counter shared by every connection, never reset between warm-up and measurement). */
  request: (i: number) => RequestSpec;
  /** Also measured on the raw floor (SQLite): the same statements and answers without the platform. */
  floor?: true;
  /** Measured while federation updates of Santander's assets arrive at this rate, as from a live city. */
  updatesPerSecond?: number;
}

/** The rate of updates a live city sends in the probe that measures reads alongside them. */
const LIVE_UPDATES = 1000;
/** Connections the updates come through: enough to keep to the rate while reads load the server. */
const UPDATE_CONNECTIONS = 32;

/** The i-th public (non-experiment) asset plan, walking the whole data set in a scattered order; `site` narrows it. */
function publicAsset(i: number, seed: number, assets: number, site?: string) {
  for (let k = i * 3; ; k++) {
    const plan = planAsset((k * STRIDE) % assets, seed);
    if (plan.site.id !== 'experimenters' && (site === undefined || plan.site.id === site)) return plan;
  }
}

/**
 * What is measured. The hot page is the same URL again and again, as a landing
 * page is (the answer cache serves it); every other probe asks something new
 * each time, so the store is read for every answer.
 */
function probes(server: BenchServer): Probe[] {
  const info = server.dataset;
  if (!info) throw new Error('the discovery scenario needs a generated data set');
  const { seed, assets } = info;
  const fast = (min: number) => (r: LoadResult) => r.rps >= min && r.p99Ms < 20 && r.errors === 0;
  return [
    { name: 'GET /assets?per=30, one hot URL', goal: '>= 5,000/s, p99 < 20 ms', met: fast(5000), request: () => ({ path: `${BASE}/assets?per=30` }) },
    {
      name: 'GET /assets?per=30, every answer read (distinct URLs)', goal: '>= 5,000/s, p99 < 20 ms', met: fast(5000), floor: true,
      request: (i) => ({ path: `${BASE}/assets?per=30&nocache=${i}` }),
    },
    {
      name: 'GET /assets/{urn}, distinct ids', goal: '>= 5,000/s, p99 < 20 ms', met: fast(5000),
      request: (i) => ({ path: `${BASE}/assets/${encodeURIComponent(publicAsset(i, seed, assets).id)}` }),
    },
    {
      name: 'GET /assets/geo/search 500 m, distinct Santander centres', goal: '>= 2,000/s', met: (r) => r.rps >= 2000 && r.errors === 0, floor: true,
      request: (i) => {
        const p = publicAsset(i, seed, assets, 'santander');
        return { path: `${BASE}/assets/geo/search?lat=${p.latitude.toFixed(6)}&long=${p.longitude.toFixed(6)}&radius=0.5&km=true` };
      },
    },
    {
      // Every update empties the answer cache: the page is read again after each, once for all the requests waiting for it.
      name: `GET /assets?per=30, one hot URL, while sites push ${LIVE_UPDATES.toLocaleString('en-US')} updates/s`, goal: '>= 5,000/s, p99 < 20 ms', met: fast(5000),
      request: () => ({ path: `${BASE}/assets?per=30` }), updatesPerSecond: LIVE_UPDATES,
    },
    // A latency goal: measured with a few connections, so that queueing behind 32 of them does not hide it.
    { name: 'GET /assets/sites (counts)', goal: 'p50 < 5 ms', met: (r) => r.p50Ms < 5 && r.errors === 0, request: () => ({ path: `${BASE}/assets/sites` }), connections: 4 },
  ];
}

/**
 * Runs `reads` while updates of three attributes of Santander's assets arrive
 * at `rate` a second through the federation interface (the site's own client).
 */
async function alongsideUpdates(server: BenchServer, rate: number, reads: () => Promise<LoadResult>): Promise<{ reads: LoadResult; updates: LoadResult }> {
  const info = server.dataset;
  if (!info) throw new Error('the discovery scenario needs a generated data set');
  const token = await server.siteToken('santander');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'platform-service': 'opencity' };
  const body = (i: number) => JSON.stringify({
    TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: new Date(info.end + i * 1000).toISOString() },
    'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: (15 + (i % 100) / 10).toFixed(2) },
    relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + (i % 50) },
    batteryLevel: { type: 'urn:oc:attributeType:batteryLevel', value: '88.00' },
  });
  const updates = load({
    url: server.url, method: 'POST', headers, connections: UPDATE_CONNECTIONS, overallRate: rate, expectStatus: 204,
    requests: (i) => ({ method: 'POST', path: `/federation/v2/entities/${encodeURIComponent(publicAsset(i, info.seed, info.assets, 'santander').id)}/attrs`, body: body(i) }),
  });
  const [r, u] = await Promise.all([reads(), updates]);
  return { reads: r, updates: u };
}

/** Peak resident memory of a process (Linux), in MiB. */
function peakRssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

const asMemory = (mib: number): LoadResult => ({ rps: 0, p50Ms: mib, p90Ms: mib, p99Ms: mib, requests: 0, errors: 0 });

async function runOn(store: StoreKind): Promise<ResultRow[]> {
  const label = store === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const server = await startServer({ store, dataset: DATASET });
  const rows: ResultRow[] = [];
  let floor: DiscoveryFloor | undefined;
  try {
    if (store === 'sqlite') floor = await startDiscoveryFloor(server.databaseUrl.slice('sqlite:'.length), `${server.url}${BASE}`);
    // A database in service has planner statistics (autovacuum gathers them); a fresh clone may not yet.
    if (store === 'postgres') await adminQuery('analyze', server.databaseUrl);
    for (const probe of probes(server)) {
      // The bare server answers with the bytes the platform gives for the first request of the probe.
      const firstPath = probe.request(0).path ?? '/';
      const sample = await fetch(`${server.url}${firstPath}`);
      const body = await sample.text();
      if (sample.status !== 200) throw new Error(`${probe.name}: ${sample.status} ${body.slice(0, 200)}`);
      const bare = await startBareServer({ status: 200, body, contentType: sample.headers.get('content-type') ?? 'application/json' });
      try {
        const connections = probe.connections ?? CONNECTIONS;
        const reads = () => load({ url: `${server.url}${BASE}/assets`, requests: probe.request, connections });
        let updates: LoadResult | undefined;
        const rate = probe.updatesPerSecond;
        const measured = await measurePair(
          rate === undefined ? reads : async () => {
            const both = await alongsideUpdates(server, rate, reads);
            updates = both.updates;
            return both.reads;
          },
          () => load({ url: `${bare.url}/`, requests: probe.request, connections }),
        );
        rows.push({
          name: `${probe.name} (${label}, 1M assets, ${connections} conns)`,
          result: measured.result,
          baselineName: 'bare node:http, same bytes',
          baseline: measured.baseline,
          goal: probe.goal,
          met: probe.met(measured.result),
        });
        if (updates && rate !== undefined) {
          rows.push({
            name: `  the updates alongside (${label}, ${UPDATE_CONNECTIONS} conns)`,
            result: updates,
            baselineName: 'rate asked',
            baseline: { rps: rate, p50Ms: 0, p90Ms: 0, p99Ms: 0, requests: 0, errors: 0 },
            goal: 'the rate asked, no errors',
            met: updates.errors === 0 && updates.rps >= 0.95 * rate,
          });
        }
        if (floor && probe.floor) {
          const floorUrl = floor.url;
          await sameAnswer(probe, `${server.url}${firstPath}`, body, `${floorUrl}${firstPath}`);
          const floorResult = await load({ url: `${floorUrl}${BASE}/assets`, requests: probe.request, connections });
          rows.push({
            name: `${probe.name} (${label}, 1M assets, ${connections} conns)`,
            result: measured.result,
            baselineName: 'raw floor: node:http + SQLite, same statements and bytes',
            baseline: floorResult,
            goal: 'reported',
            met: measured.result.errors === 0 && floorResult.errors === 0,
          });
        }
      } finally {
        await bare.close();
      }
    }
    const mib = peakRssMiB(server.pid);
    rows.push({
      name: `server peak memory after the loads, MiB in the latency columns (${label}, 1M assets)`,
      result: asMemory(mib),
      baselineName: 'limit',
      baseline: asMemory(300),
      goal: '< 300 MiB',
      met: mib < 300,
    });
  } finally {
    await floor?.close();
    await server.close();
  }
  return rows;
}

/** The floor must answer exactly what the platform answers, or it measures other work. */
async function sameAnswer(probe: Probe, platformUrl: string, platformBody: string, floorUrl: string): Promise<void> {
  const floorBody = await (await fetch(floorUrl)).text();
  if (floorBody === platformBody) return;
  let at = 0;
  while (floorBody[at] === platformBody[at]) at++;
  throw new Error(`${probe.name}: the raw floor answers other bytes than ${platformUrl}, from character ${at}: ${floorBody.slice(at, at + 80)} / ${platformBody.slice(at, at + 80)}`);
}

const discovery: Scenario = {
  name: 'discovery',
  description: 'Discovery reads on 1,000,000 generated assets over 10 sites (SQLite and PostgreSQL): a page of assets (one hot URL, idle and while 1,000 updates/s arrive; distinct URLs), distinct assets, 500 m geo searches around distinct Santander positions, the sites with their counts, and the server\'s peak memory; on SQLite, the two probes that read the store on every answer also beside their raw floor (node:http and better-sqlite3 sending the same statements, answering the same bytes).',
  async run(): Promise<ResultRow[]> {
    return [...(await runOn('sqlite')), ...(await runOn('postgres'))];
  },
};

export default discovery;
