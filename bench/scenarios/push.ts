import { setTimeout as delay } from 'node:timers/promises';
import { measurePair } from '../lib/compare.js';
import type { StoreKind } from '../lib/databases.js';
import { CONNECTIONS, seededSite, updateRequests } from '../lib/federation-load.js';
import { benchDuration, benchWarmup, load } from '../lib/load.js';
import { startServer, type BenchServer } from '../lib/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../lib/webhook-receiver.js';
import { Store } from '../../src/storage/store.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * Push (NGSI v2 subscriptions): how soon a notification reaches its webhook
 * after the update, at BENCH_PUSH_RATE updates/s (default 1,000) with 10
 * subscriptions matching everything, on each store of BENCH_PUSH_STORES
 * (default sqlite,postgres); what those subscriptions cost the federation's
 * update rate (against none, alternately); and whether one destination that
 * never answers, beside 9 healthy ones, slows the healthy ones (against the
 * 9 alone). The healthy subscriptions share one receiver (one destination,
 * one path each); the never-answering one is a destination of its own (a
 * second receiver, on its own port), as a dead endpoint is another host. A notification's delay runs from the write's arrival at the
 * server (the time its change carries) to the webhook's receipt, an upper
 * bound of the delay from its commit; every measured change must reach every
 * healthy webhook (a missing one is an error).
 */

const RATE = Number(process.env.BENCH_PUSH_RATE ?? 1000);
const STORES = (process.env.BENCH_PUSH_STORES ?? 'sqlite,postgres').split(',').filter((s): s is StoreKind => s === 'sqlite' || s === 'postgres');
const SUBSCRIPTIONS = 10;
/** Connections the paced updates come through: enough to keep to the rate. */
const PACED_CONNECTIONS = 16;
/** How long delivery may take to catch up once the load ends, before what has not arrived counts as missing. */
const DRAIN_MS = 60_000;

interface PushRun {
  updates: LoadResult;
  delivery: LoadResult;
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function subscribe(server: BenchServer, token: string, url: string): Promise<void> {
  const res = await fetch(`${server.url}/federation/v2/subscriptions`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject: { entities: [{ idPattern: '.*' }] }, notification: { http: { url } } }),
  });
  if (res.status !== 201) throw new Error(`subscribing ${url}: ${res.status} ${await res.text()}`);
}

/** The changes committed in [from, to]: seq → the platform's time of the write. */
async function changeTimes(databaseUrl: string, from: number, to: number): Promise<Map<number, number>> {
  const store = Store.open(databaseUrl);
  try {
    const rows = await store.read.selectFrom('changes').select(['seq', 'committed_at']).where('committed_at', '>=', from).where('committed_at', '<=', to).execute();
    return new Map(rows.map((r) => [Number(r.seq), Number(r.committed_at)]));
  } finally {
    await store.close();
  }
}

/** Waits until every healthy path has seen `lastSeq` (or the drain time is up). */
async function drained(receiver: WebhookReceiver, paths: readonly string[], lastSeq: number): Promise<void> {
  const deadline = Date.now() + DRAIN_MS;
  while (Date.now() < deadline) {
    const highest = await receiver.highest();
    if (paths.every((p) => (highest.get(p) ?? 0) >= lastSeq)) return;
    await delay(200);
  }
}

/**
 * One server with `healthy` webhooks and `silent` never-answering ones, under
 * updates at `rate` (undefined: as fast as it answers); the delivery figures
 * when `measureDelivery`.
 */
async function pushRun(store: StoreKind, options: { healthy: number; silent?: number; rate?: number; measureDelivery: boolean }): Promise<PushRun> {
  const healthyPaths = Array.from({ length: options.healthy }, (_, k) => `/healthy/${k}`);
  const silentPaths = Array.from({ length: options.silent ?? 0 }, (_, k) => `/silent/${k}`);
  const receiver = await startWebhookReceiver();
  const deadEnd = silentPaths.length > 0 ? await startWebhookReceiver(new Set(silentPaths)) : undefined;
  const server = await startServer({ store, env: { NOTIFY_ALLOWED_HOSTS: '127.0.0.1' } });
  try {
    // The seeded assets' creates come before the subscriptions, which notify only what follows them.
    const headers = await seededSite(server);
    const token = await server.clientToken('bench-subscriber');
    for (const path of healthyPaths) await subscribe(server, token, `${receiver.url}${path}`);
    for (const path of silentPaths) await subscribe(server, token, `${(deadEnd as WebhookReceiver).url}${path}`);
    // Live on the server within its next look at the subscriptions.
    await delay(1500);
    const started = Date.now();
    const measuredFrom = started + benchWarmup() * 1000;
    const updates = await load({
      url: server.url, method: 'POST', headers, requests: updateRequests, expectStatus: 204,
      ...(options.rate !== undefined ? { overallRate: options.rate, connections: PACED_CONNECTIONS } : { connections: CONNECTIONS }),
    });
    const ended = Date.now();
    if (!options.measureDelivery) return { updates, delivery: updates };
    const times = await changeTimes(server.databaseUrl, measuredFrom, ended);
    const lastSeq = Math.max(0, ...times.keys());
    await drained(receiver, healthyPaths, lastSeq);
    const healthy = new Set(healthyPaths);
    const seen = new Set<string>();
    const delays: number[] = [];
    for (const a of await receiver.arrivals()) {
      const at = times.get(a.seq);
      if (at === undefined || !healthy.has(a.path)) continue;
      const key = `${a.path} ${a.seq}`;
      if (seen.has(key)) continue;
      seen.add(key);
      delays.push(a.at - at);
    }
    delays.sort((a, b) => a - b);
    const expected = times.size * healthyPaths.length;
    return {
      updates,
      delivery: {
        rps: Math.round(delays.length / benchDuration()), p50Ms: quantile(delays, 0.5), p90Ms: quantile(delays, 0.9), p99Ms: quantile(delays, 0.99),
        requests: delays.length, errors: expected - delays.length,
      },
    };
  } finally {
    await server.close();
    await receiver.close();
    await deadEnd?.close();
  }
}

const storeName = (store: StoreKind) => (store === 'sqlite' ? 'SQLite' : 'PostgreSQL');

const push: Scenario = {
  name: 'push',
  description: `NGSI v2 subscriptions: update → webhook delay at ${RATE} updates/s with ${SUBSCRIPTIONS} subscriptions matching everything; the federation's update rate with them against none; one never-answering destination beside 9 healthy ones.`,
  async run(): Promise<ResultRow[]> {
    const only = process.env.BENCH_PUSH_ROWS ?? 'all';
    if (!['all', 'latency', 'ratio', 'isolation'].includes(only)) throw new Error(`BENCH_PUSH_ROWS=${only}: expected all, latency, ratio or isolation`);
    const wanted = (rows: string) => only === 'all' || only === rows;
    const rows: ResultRow[] = [];
    for (const store of wanted('latency') ? STORES : []) {
      const run = await pushRun(store, { healthy: SUBSCRIPTIONS, rate: RATE, measureDelivery: true });
      rows.push({
        name: `update → webhook, ${storeName(store)}, ${RATE} updates/s, ${SUBSCRIPTIONS} subscriptions (latency: from the write's arrival; errors: notifications missing)`,
        result: run.delivery, baselineName: 'the updates notified', baseline: run.updates,
        goal: 'p99 < 250 ms, none missing', met: run.delivery.p99Ms < 250 && run.delivery.errors === 0 && run.updates.errors === 0,
      });
    }
    for (const store of wanted('ratio') ? STORES : []) {
      const pair = await measurePair(
        () => pushRun(store, { healthy: SUBSCRIPTIONS, measureDelivery: false }).then((r) => r.updates),
        () => pushRun(store, { healthy: 0, measureDelivery: false }).then((r) => r.updates),
      );
      rows.push({
        name: `federation update, ${storeName(store)} (${CONNECTIONS} conns), ${SUBSCRIPTIONS} subscriptions matching everything`, result: pair.result,
        baselineName: 'same build, no subscription', baseline: pair.baseline,
        goal: 'ratio >= 0.7', met: pair.result.rps >= 0.7 * pair.baseline.rps && pair.result.errors === 0,
      });
    }
    if (!wanted('isolation')) return rows;
    const isolationStore = STORES[0] ?? 'sqlite';
    const withDead = await pushRun(isolationStore, { healthy: SUBSCRIPTIONS - 1, silent: 1, rate: RATE, measureDelivery: true });
    const alone = await pushRun(isolationStore, { healthy: SUBSCRIPTIONS - 1, rate: RATE, measureDelivery: true });
    rows.push({
      name: `update → healthy webhooks, ${storeName(isolationStore)}, ${RATE} updates/s, 9 healthy + 1 never answering on a port of its own (latency; errors: missing)`,
      result: withDead.delivery, baselineName: 'the 9 healthy alone', baseline: alone.delivery,
      goal: 'p99 <= 1.5x baseline p99, none missing',
      met: withDead.delivery.p99Ms <= 1.5 * Math.max(1, alone.delivery.p99Ms) && withDead.delivery.errors === 0,
    });
    return rows;
  },
};

export default push;
