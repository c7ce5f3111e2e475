import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { StoreKind } from './databases.js';
import type { DatasetSize } from './datasets.js';
import { seededSite, updateRequests } from './federation-load.js';
import type { DatasetInfo } from './generate.js';
import { summarize, type Latencies } from './probe.js';
import { startServer } from './server.js';

/**
 * Drops the first month of a data set's readings as a server does it, while
 * sites keep updating: a server of its own starts on a copy of the data set
 * with a HISTORY_RETENTION that leaves the first month expired, and its own
 * background pruning (once a minute) drops it through its write pipeline.
 * The latencies of the updates made while the drop ran tell how long its
 * writes held them up. The drop's progress is read from the store beside
 * the server: how many series still hold an expired reading.
 */

const MONTH_MS = 30 * 86_400_000;
const CONNECTIONS = 8;
/** Bounds of the whole measurement, the wait for the first pruning included. */
const MAX_MS = 300_000;
const MAX_UPDATES = 2_000_000;
const POLL_MS = 250;

export interface ExpiryStall {
  dropped: number;
  dropMs: number;
  /** Whether the month was dropped whole within the bounds. */
  whole: boolean;
  updates: Latencies;
}

/** Reads the store under the server: the expired readings, and how many series still hold one. */
interface ExpiryProbe {
  expiredReadings(): Promise<number>;
  seriesWithExpired(): Promise<number>;
  close(): Promise<void>;
}

const EXPIRED = 'select count(*) as n from readings where recv_time < $1';
const SERIES_WITH_EXPIRED = `select count(*) as n from asset_attributes aa
  where exists (select 1 from readings r where r.asset_seq = aa.asset_seq and r.name_id = (select id from reading_terms where term = aa.name) and r.recv_time < $1)`;
/** PostgreSQL also keeps readings packed in blocks (src/storage/postgres/reading-blocks.ts): a block holds expired ones while it starts before the cutoff. */
const PACKED_EXPIRED = `select (${EXPIRED}) + (select count(*) from reading_blocks b cross join lateral unnest(b.time_offsets) as t(o)
  where b.first_time < $1 and b.first_time + t.o < $1) as n`;
const PACKED_SERIES_WITH_EXPIRED = `select count(*) as n from asset_attributes aa
  cross join lateral (select id from reading_terms where term = aa.name) as term
  where exists (select 1 from readings r where r.asset_seq = aa.asset_seq and r.name_id = term.id and r.recv_time < $1)
    or exists (select 1 from reading_blocks b where b.asset_seq = aa.asset_seq and b.name_id = term.id and b.first_time < $1)`;

async function openProbe(store: StoreKind, databaseUrl: string, before: number): Promise<ExpiryProbe> {
  if (store === 'sqlite') {
    const db = new SQLite(databaseUrl.slice('sqlite:'.length), { readonly: true });
    const count = (text: string) => Number((db.prepare(text.replace('$1', '?')).get(before) as { n: number }).n);
    return { expiredReadings: async () => count(EXPIRED), seriesWithExpired: async () => count(SERIES_WITH_EXPIRED), close: async () => { db.close(); } };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const count = async (text: string) => Number((await client.query(text, [before])).rows[0].n);
  return { expiredReadings: () => count(PACKED_EXPIRED), seriesWithExpired: () => count(PACKED_SERIES_WITH_EXPIRED), close: () => client.end() };
}

export async function dropMonthUnderUpdates(store: StoreKind, size: DatasetSize, info: DatasetInfo): Promise<ExpiryStall> {
  // A data set shorter than three months (a check run's) loses its first third instead.
  const before = info.start + Math.min(MONTH_MS, Math.floor((info.end - info.start) / 3));
  // Whole seconds, rounded down: by the time the pruning runs, what it drops reaches a little past the month.
  const retention = `${Math.floor((Date.now() - before) / 1000)}s`;
  const server = await startServer({ store, dataset: size, env: { HISTORY_RETENTION: retention } });
  const probe = await openProbe(store, server.databaseUrl, before);
  const samples: Array<{ at: number; ms: number; ok: boolean }> = [];
  let done = false;
  const started = performance.now();
  const overTime = () => performance.now() - started > MAX_MS;
  try {
    const headers = await seededSite(server);
    const expired = await probe.expiredReadings();
    const series = await probe.seriesWithExpired();
    const worker = async (first: number) => {
      for (let i = first; !done && !overTime() && samples.length < MAX_UPDATES; i += CONNECTIONS) {
        const spec = updateRequests(i);
        const t = performance.now();
        const res = await fetch(`${server.url}${spec.path}`, { method: spec.method, headers, body: spec.body });
        await res.arrayBuffer();
        samples.push({ at: t, ms: performance.now() - t, ok: res.status === 204 });
      }
    };
    const workers = Array.from({ length: CONNECTIONS }, (_, k) => worker(k));
    // The drop began at most one poll before its first sign, and ended at most one poll before it was seen ended.
    let dropStart: number | undefined;
    let left = series;
    while (left > 0 && !overTime()) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      left = await probe.seriesWithExpired();
      if (dropStart === undefined && left < series) dropStart = performance.now() - POLL_MS;
    }
    const dropEnd = performance.now();
    done = true;
    await Promise.all(workers);
    const during = samples.filter((s) => dropStart !== undefined && s.at + s.ms >= dropStart && s.at <= dropEnd);
    return {
      dropped: expired,
      dropMs: dropStart === undefined ? 0 : dropEnd - dropStart,
      whole: left === 0,
      updates: summarize(during.map((s) => s.ms), during.filter((s) => !s.ok).length),
    };
  } finally {
    done = true;
    await probe.close();
    await server.close();
  }
}
