import { pruneHistory } from '../../src/services/history-pruning.js';
import { Store } from '../../src/storage/store.js';
import { seededSite, updateRequests } from './federation-load.js';
import type { DatasetInfo } from './generate.js';
import { summarize, type Latencies } from './probe.js';
import type { BenchServer } from './server.js';

/**
 * Drops the first month of a data set's readings (as HISTORY_RETENTION would
 * once they expired) while sites keep updating: the latencies of the
 * concurrent updates tell how long the drop's writes held them up. The drop
 * runs as a second process on the store does it (several processes may all
 * prune), in its short writes, through its own write pipeline.
 */

const MONTH_MS = 30 * 86_400_000;
const CONNECTIONS = 8;
/** Bounds of the whole measurement. */
const MAX_MS = 300_000;
const MAX_UPDATES = 2_000_000;

export interface ExpiryStall {
  dropped: number;
  dropMs: number;
  /** Whether the month was dropped whole within the bounds. */
  whole: boolean;
  updates: Latencies;
}

export async function dropMonthUnderUpdates(server: BenchServer, info: DatasetInfo): Promise<ExpiryStall> {
  const headers = await seededSite(server);
  const store = Store.open(server.databaseUrl);
  const now = Date.now();
  const samples: number[] = [];
  let errors = 0;
  let done = false;
  const started = performance.now();
  const overTime = () => performance.now() - started > MAX_MS;
  const worker = async (first: number) => {
    for (let i = first; !done && !overTime() && samples.length < MAX_UPDATES; i += CONNECTIONS) {
      const spec = updateRequests(i);
      const t = performance.now();
      const res = await fetch(`${server.url}${spec.path}`, { method: spec.method, headers, body: spec.body });
      await res.arrayBuffer();
      samples.push(performance.now() - t);
      if (res.status !== 204) errors++;
    }
  };
  const workers = Array.from({ length: CONNECTIONS }, (_, k) => worker(k));
  try {
    const pruned = await pruneHistory(store, now, { historyRetentionMs: now - (info.start + MONTH_MS), rollupRetentionMs: Number.POSITIVE_INFINITY }, overTime);
    const dropMs = performance.now() - started;
    const whole = !overTime();
    done = true;
    await Promise.all(workers);
    return { dropped: pruned.readings, dropMs, whole, updates: summarize(samples, errors) };
  } finally {
    done = true;
    await Promise.all(workers).catch(() => {});
    await store.close();
  }
}
