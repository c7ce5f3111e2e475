import type { StoreKind } from '../lib/databases.js';
import { measurePair } from '../lib/compare.js';
import { CONNECTIONS, seededSite, updateRequests } from '../lib/federation-load.js';
import { benchDuration, benchWarmup, load } from '../lib/load.js';
import { startServer } from '../lib/server.js';
import { Store } from '../../src/storage/store.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * The change log (issue: storage reshaped). Its cost: federation updates (3
 * attributes, 64 connections) with the change log written, against the same
 * build with CHANGE_LOG=off, measured alternately; the goal is on
 * SQLite's updates, the federation figure it names, and PostgreSQL's is
 * reported beside it. And how soon a reader in
 * another process learns of a change: the server takes 1,000 updates a second
 * on PostgreSQL while this process follows the change log (waiting, then
 * reading the page after what it saw); each change's delay runs from the
 * write's arrival at the server (the time the change carries), an upper bound
 * of the delay from its commit.
 */

const FOLLOWED_RATE = 1000;
/** Connections the followed updates come through: enough to keep to the rate. */
const FOLLOWED_CONNECTIONS = 16;

async function updates(store: StoreKind, changeLog: 'on' | 'off'): Promise<LoadResult> {
  const server = await startServer({ store, env: { CHANGE_LOG: changeLog } });
  try {
    const headers = await seededSite(server);
    return await load({ url: server.url, method: 'POST', headers, requests: updateRequests, connections: CONNECTIONS, expectStatus: 204 });
  } finally {
    await server.close();
  }
}

const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

/**
 * Follows the change log of `databaseUrl` from this process until `stop`
 * resolves: the delay of each change that arrived from `since` on, and
 * whether the reader had seen the last change once the load ended.
 */
async function follow(databaseUrl: string, since: () => number, stop: Promise<unknown>): Promise<{ delays: number[]; complete: boolean }> {
  const reader = Store.open(databaseUrl);
  const delays: number[] = [];
  let stopped = false;
  void stop.finally(() => {
    stopped = true;
  });
  let seen = await reader.changes.latest();
  const readAll = async () => {
    for (;;) {
      const page = await reader.changes.after(seen);
      const learned = Date.now();
      for (const change of page) {
        seen = change.seq;
        if (change.at >= since()) delays.push(learned - change.at);
      }
      if (page.length < 1000) return;
    }
  };
  try {
    while (!stopped) {
      if (await reader.changes.waitAfter(seen, 500)) await readAll();
    }
    await readAll();
    return { delays, complete: seen === (await reader.changes.latest()) };
  } finally {
    await reader.close();
  }
}

async function followedUpdates(): Promise<{ updates: LoadResult; learned: LoadResult }> {
  const server = await startServer({ store: 'postgres' });
  try {
    const headers = await seededSite(server);
    const started = Date.now();
    const loading = load({ url: server.url, method: 'POST', headers, requests: updateRequests, connections: FOLLOWED_CONNECTIONS, overallRate: FOLLOWED_RATE, expectStatus: 204 });
    // The warm-up's changes are not counted.
    const measuredFrom = started + benchWarmup() * 1000;
    const [updatesResult, followed] = await Promise.all([loading, follow(server.databaseUrl, () => measuredFrom, loading)]);
    const delays = followed.delays.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      updates: updatesResult,
      learned: {
        rps: Math.round(delays.length / benchDuration()), p50Ms: round(quantile(delays, 0.5)), p90Ms: round(quantile(delays, 0.9)), p99Ms: round(quantile(delays, 0.99)),
        requests: delays.length, errors: followed.complete ? 0 : 1,
      },
    };
  } finally {
    await server.close();
  }
}

const changes: Scenario = {
  name: 'changes',
  description: 'The change log: federation updates with it written against the same build with CHANGE_LOG=off (SQLite and PostgreSQL), and the delay until a reader in another process learns of a change at 1,000 updates/s on PostgreSQL.',
  async run(): Promise<ResultRow[]> {
    const sqlite = await measurePair(() => updates('sqlite', 'on'), () => updates('sqlite', 'off'));
    const postgres = await measurePair(() => updates('postgres', 'on'), () => updates('postgres', 'off'));
    const followed = await followedUpdates();
    const costMet = (pair: { result: LoadResult; baseline: LoadResult }) => pair.result.rps >= 0.9 * pair.baseline.rps && pair.result.errors === 0;
    return [
      { name: `update, 3 attributes, SQLite (${CONNECTIONS} conns), change log on`, result: sqlite.result, baselineName: 'same build, CHANGE_LOG=off', baseline: sqlite.baseline, goal: 'ratio >= 0.9', met: costMet(sqlite) },
      {
        name: `update, 3 attributes, PostgreSQL (${CONNECTIONS} conns), change log on`, result: postgres.result, baselineName: 'same build, CHANGE_LOG=off', baseline: postgres.baseline,
        goal: 'reported; no errors', met: postgres.result.errors === 0,
      },
      {
        name: `changes learned by a reader in another process, PostgreSQL, ${FOLLOWED_RATE} updates/s (latency: from the write's arrival)`,
        result: followed.learned, baselineName: 'the updates followed', baseline: followed.updates,
        goal: 'p99 < 100 ms, every change learned', met: followed.learned.p99Ms < 100 && followed.learned.errors === 0 && followed.updates.errors === 0,
      },
    ];
  },
};

export default changes;
