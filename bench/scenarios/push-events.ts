import fs from 'node:fs';
import http from 'node:http';
import { writeHeaders } from '../lib/federation-load.js';
import { currentTimeInstant, perSecond } from '../lib/time-instant.js';
import { benchDuration, benchWarmup, load, type RequestSpec } from '../lib/load.js';
import { startServer, type BenchServer } from '../lib/server.js';
import type { StoreKind } from '../lib/databases.js';
import { Store } from '../../src/storage/store.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * The live event stream (issue 20, part 3): many clients hold
 * `GET /discovery/v0/assets/events` open while a site pushes updates at a
 * steady rate. Each client follows one group of assets (a urn prefix; with one
 * group every client follows every change). A change's delay runs from the
 * write's arrival at the server (the time the event carries) to its arrival at
 * the client. Afterwards every client's events are checked against the change
 * log: each matching change must have reached each client. The server's
 * resident memory is sampled throughout.
 *
 * Parameters (environment): BENCH_EVENT_CLIENTS (default 2000), BENCH_EVENT_RATE
 * (updates/s, default 500), BENCH_EVENT_GROUPS (default 10), BENCH_EVENT_STORES
 * (default sqlite; e.g. sqlite,postgres).
 */

const envNumber = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return process.env[name] !== undefined && process.env[name] !== '' && Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};
const CLIENTS = envNumber('BENCH_EVENT_CLIENTS', 2000);
const RATE = envNumber('BENCH_EVENT_RATE', 500);
const GROUPS = envNumber('BENCH_EVENT_GROUPS', 10);
const STORES = (process.env.BENCH_EVENT_STORES ?? 'sqlite').split(',').filter((s): s is StoreKind => s === 'sqlite' || s === 'postgres');
/** Assets the updates cycle through, spread over the groups. */
const ASSETS = 1000;
const SITE = 'santander';
const groupPrefix = (g: number) => `urn:oc:entity:${SITE}:environment:bench:g${g}:`;
const assetId = (i: number) => `${groupPrefix(i % GROUPS)}${i}`;
/** How long the clients may take to receive the last changes once the load ends. */
const DRAIN_MS = 10_000;
const RSS_EVERY_MS = 250;

const UPDATE_BODIES = 50;
const updateBodies = perSecond((timeInstant) => Array.from({ length: UPDATE_BODIES }, (_, i) => JSON.stringify({
  TimeInstant: timeInstant,
  'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: (15 + i / 10).toFixed(2), metadata: {} },
  relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + i, metadata: {} },
})));
const UPDATE_PATHS = Array.from({ length: ASSETS }, (_, i) => `/federation/v2/entities/${assetId(i)}/attrs`);
const updates = (i: number): RequestSpec => ({ method: 'POST', path: UPDATE_PATHS[i % ASSETS], body: updateBodies()[i % UPDATE_BODIES] });

async function seed(server: BenchServer): Promise<Record<string, string>> {
  const headers = writeHeaders(await server.siteToken(SITE, { latitude: 43.46232, longitude: -3.80998, quota: 1_000_000 }));
  for (let start = 0; start < ASSETS; start += 16) {
    await Promise.all(Array.from({ length: Math.min(16, ASSETS - start) }, async (_, k) => {
      const i = start + k;
      const body = JSON.stringify({
        id: assetId(i), type: 'urn:oc:entityType:iotdevice', TimeInstant: currentTimeInstant(),
        location: { type: 'geo:point', value: `${(43.46 + (i % 100) / 10_000).toFixed(5)}, ${(-3.81 + (i % 97) / 10_000).toFixed(5)}`, metadata: {} },
      });
      const res = await fetch(`${server.url}/federation/v2/entities`, { method: 'POST', headers, body });
      if (res.status !== 201) throw new Error(`seeding ${assetId(i)}: ${res.status} ${await res.text()}`);
    }));
  }
  return headers;
}

/** One stream client: counts the events it gets after `from` and records their delays. */
class StreamClient {
  received = 0;
  lastSeq = 0;
  private rest = '';
  private request: http.ClientRequest | undefined;
  failed: string | undefined;

  constructor(readonly group: number, private readonly delays: number[], private readonly measuredFrom: () => number) {}

  open(base: string): Promise<void> {
    return new Promise((resolve) => {
      this.request = http.get(`${base}/discovery/v0/assets/events?urn=${encodeURIComponent(groupPrefix(this.group))}`, { agent: false }, (res) => {
        if (res.statusCode !== 200) {
          this.failed = `HTTP ${res.statusCode}`;
          res.resume();
          resolve();
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.read(chunk));
        res.on('end', () => { this.failed ??= 'the stream ended'; });
        resolve();
      });
      this.request.on('error', (e) => {
        this.failed ??= e.message;
        resolve();
      });
    });
  }

  /** Events are found by their `id:` and `"time":"…"`: cheap enough for a million a second on one core. */
  private read(chunk: string): void {
    const now = Date.now();
    const text = this.rest + chunk;
    const end = text.lastIndexOf('\n\n');
    if (end < 0) {
      this.rest = text;
      return;
    }
    this.rest = text.slice(end + 2);
    let at = 0;
    for (;;) {
      const id = text.indexOf('id: ', at);
      if (id < 0 || id > end) break;
      const idEnd = text.indexOf('\n', id);
      const seq = Number(text.slice(id + 4, idEnd));
      const time = text.indexOf('"time":"', idEnd);
      at = idEnd;
      if (seq <= this.lastSeq || time < 0 || time > end) continue;
      this.lastSeq = seq;
      const t = Date.parse(text.slice(time + 8, time + 32));
      if (t >= this.measuredFrom()) {
        this.received++;
        this.delays.push(now - t);
      }
    }
  }

  close(): void {
    this.request?.destroy();
  }
}

/** The server's resident memory, in MiB, from /proc (0 where /proc is missing). */
function rssMiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return kb / 1024;
  } catch {
    return 0;
  }
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function run(store: StoreKind): Promise<ResultRow> {
  const server = await startServer({ store, env: { EVENTS_MAX_CLIENTS: String(CLIENTS + 100) } });
  const clients: StreamClient[] = [];
  let peakRss = 0;
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, rssMiB(server.pid)); }, RSS_EVERY_MS);
  try {
    const headers = await seed(server);
    const delays: number[] = [];
    let measuredFrom = Infinity;
    for (let i = 0; i < CLIENTS; i++) clients.push(new StreamClient(i % GROUPS, delays, () => measuredFrom));
    // Connected a few hundred at a time, as a crowd of pages would.
    for (let start = 0; start < CLIENTS; start += 200) await Promise.all(clients.slice(start, start + 200).map((c) => c.open(server.url)));
    const refused = clients.filter((c) => c.failed).length;

    const reader = Store.open(server.databaseUrl);
    let updatesResult: LoadResult;
    let expected: number[];
    try {
      measuredFrom = Date.now() + benchWarmup() * 1000;
      updatesResult = await load({ url: server.url, method: 'POST', headers, requests: updates, connections: 16, overallRate: RATE, expectStatus: 204 });
      // Every change committed from the measured start on, by group.
      expected = Array.from({ length: GROUPS }, () => 0);
      let seq = 0;
      for (;;) {
        const page = await reader.changes.after(seq);
        for (const c of page) {
          seq = c.seq;
          if (c.at >= measuredFrom && c.kind === 'update') expected[Number(/:g(\d+):/.exec(c.assetId)?.[1])]! += 1;
        }
        if (page.length < 1000) break;
      }
    } finally {
      await reader.close();
    }
    const complete = () => clients.every((c) => c.received >= (expected[c.group] ?? 0));
    const drainUntil = Date.now() + DRAIN_MS;
    while (!complete() && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 100));
    const missing = clients.reduce((n, c) => n + Math.max(0, (expected[c.group] ?? 0) - c.received), 0);
    const broken = clients.filter((c) => c.failed).length;

    delays.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 100) / 100;
    const delivered: LoadResult = {
      rps: Math.round(delays.length / benchDuration()), p50Ms: round(quantile(delays, 0.5)), p90Ms: round(quantile(delays, 0.9)), p99Ms: round(quantile(delays, 0.99)),
      requests: delays.length, errors: missing + broken + refused,
    };
    const perClient = Math.round(RATE / GROUPS);
    process.stdout.write(`push-events ${store}: ${CLIENTS} clients (${refused} refused, ${broken} broken), ${missing} deliveries missing, server RSS peak ${Math.round(peakRss)} MiB\n`);
    return {
      name: `event stream, ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${CLIENTS} clients in ${GROUPS} urn groups (~${perClient} events/s each), ${RATE} updates/s; latency from the write's arrival; server RSS peak ${Math.round(peakRss)} MiB`,
      result: delivered, baselineName: 'the updates streamed', baseline: updatesResult,
      goal: 'every matching change to every client, p99 < 1 s, RSS < 400 MiB',
      met: delivered.errors === 0 && delivered.p99Ms < 1000 && peakRss < 400 && updatesResult.errors === 0,
    };
  } finally {
    clearInterval(sampler);
    for (const c of clients) c.close();
    await server.close();
  }
}

const pushEvents: Scenario = {
  name: 'push-events',
  description: `The live event stream: ${CLIENTS} concurrent clients while a site pushes ${RATE} updates/s; every matching change must reach every client (BENCH_EVENT_CLIENTS, BENCH_EVENT_RATE, BENCH_EVENT_GROUPS, BENCH_EVENT_STORES).`,
  async run(): Promise<ResultRow[]> {
    const rows: ResultRow[] = [];
    for (const store of STORES) rows.push(await run(store));
    return rows;
  },
};

export default pushEvents;
