import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { federationWrite, fetchToken, prepareSite } from '../helpers/hardening-load.js';

/**
 * A soak at half the measured maximum: the real server (SQLite, the default
 * store) takes a steady mix of federation updates and discovery/datasource
 * reads for SOAK_SECONDS (300 by default). Reported per window: p99 latency and
 * the server's memory; asserted: no error, and memory that does not keep growing.
 */

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const WINDOWS = 5;
const ASSETS = 200;
const MAX_IN_FLIGHT = 256;
const SITE = 'soakcity';

const p99 = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0;
};

async function memoryOf(server: ServerProcess): Promise<{ rss: number; heap: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: metric('process_resident_memory_bytes'), heap: metric('nodejs_heap_size_used_bytes') };
}

describe(`soak: ${SOAK_SECONDS} s at half the maximum throughput`, () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let token = '';
  let secret = '';
  let n = 0;

  before(async () => {
    db = await createTestDatabase('sqlite');
    secret = await prepareSite(db.url, SITE);
    server = await startServer({ DATABASE_URL: db.url });
    token = await fetchToken(server.url, `ocsite-${SITE}`, secret);
    for (let i = 0; i < ASSETS; i++) assert.equal(await federationWrite(server.url, token, 'create', `urn:oc:entity:${SITE}:soak:x:${i}`, ++n), 201);
  });

  after(async () => {
    await server?.stop('SIGTERM');
    await db?.drop();
  });

  /** One request of the mix: 70 % updates, 30 % reads. Resolves with [latency ms, ok, status (0: no answer)]. */
  async function one(): Promise<[number, boolean, number]> {
    const started = performance.now();
    const i = Math.floor(Math.random() * ASSETS);
    const id = `urn:oc:entity:${SITE}:soak:x:${i}`;
    const pick = Math.random();
    let status: number;
    let ok: boolean;
    if (pick < 0.7) {
      status = await federationWrite(server.url, token, 'update', id, ++n);
      ok = status === 204;
    } else {
      const url = pick < 0.85 ? `${server.url}/discovery/v0/assets?per=20&page=${1 + (i % 10)}` : `${server.url}/datasource/${encodeURIComponent(id)}/temperature/readings?limit=20`;
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 0;
      }
      ok = status === 200;
    }
    return [performance.now() - started, ok, status];
  }

  it('keeps its latency and memory steady', async () => {
    // The maximum: a closed loop of 64 clients for 5 s (bounded in count too).
    const probeEnd = performance.now() + 5000;
    let probeDone = 0;
    await Promise.all(Array.from({ length: 64 }, async () => {
      for (let k = 0; k < 2000 && performance.now() < probeEnd; k++) {
        const [, ok] = await one();
        assert.ok(ok);
        probeDone++;
      }
    }));
    const maximum = probeDone / 5;
    const rate = Math.max(10, maximum / 2);

    const windowMs = (SOAK_SECONDS * 1000) / WINDOWS;
    const windows: Array<{ p99: number; count: number; rss: number; heap: number }> = [];
    let errors = 0;
    const errorStatuses = new Map<number, number>();
    let skipped = 0;
    for (let w = 0; w < WINDOWS; w++) {
      // Access tokens live 300 s, as long as the whole soak: like any real site, take a fresh one as time goes on.
      token = await fetchToken(server.url, `ocsite-${SITE}`, secret);
      const latencies: number[] = [];
      const inFlight = new Set<Promise<void>>();
      const start = performance.now();
      let sent = 0;
      // Open loop: requests go out at `rate` per second whatever the answers do.
      while (performance.now() - start < windowMs) {
        const due = Math.floor(((performance.now() - start) / 1000) * rate);
        for (; sent < due; sent++) {
          if (inFlight.size >= MAX_IN_FLIGHT) {
            skipped++;
            continue;
          }
          const p: Promise<void> = one().then(([ms, ok, status]) => {
            latencies.push(ms);
            if (!ok) {
              errors++;
              errorStatuses.set(status, (errorStatuses.get(status) ?? 0) + 1);
            }
            inFlight.delete(p);
          });
          inFlight.add(p);
        }
        await new Promise<void>((resolve) => setTimeout(resolve, 5));
      }
      await Promise.all(inFlight);
      const memory = await memoryOf(server);
      windows.push({ p99: p99(latencies), count: latencies.length, ...memory });
    }

    const first = windows[0]!;
    const last = windows[windows.length - 1]!;
    const drift = Math.max(...windows.map((x) => x.p99)) / Math.max(first.p99, 0.001);
    const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
    process.stdout.write(`# soak seconds=${SOAK_SECONDS} max=${maximum.toFixed(0)}/s rate=${rate.toFixed(0)}/s errors=${errors} ${JSON.stringify(Object.fromEntries(errorStatuses))} skipped=${skipped}\n`);
    windows.forEach((x, i) => process.stdout.write(`# soak window ${i + 1}: requests=${x.count} p99=${x.p99.toFixed(1)}ms rss=${mb(x.rss)}MiB heap=${mb(x.heap)}MiB\n`));
    process.stdout.write(`# soak p99 drift (worst window / first) = ${drift.toFixed(2)}x, rss growth first->last = ${mb(last.rss - first.rss)}MiB, heap growth = ${mb(last.heap - first.heap)}MiB\n`);

    assert.equal(errors, 0, 'every request of the soak succeeded');
    // Memory must level off: the last window may not exceed the first by more than half (plus 64 MiB of slack for caches).
    assert.ok(last.heap <= first.heap * 1.5 + 64 * 1024 * 1024, `heap grew from ${mb(first.heap)} to ${mb(last.heap)} MiB`);
    assert.ok(last.rss <= first.rss * 1.5 + 64 * 1024 * 1024, `rss grew from ${mb(first.rss)} to ${mb(last.rss)} MiB`);
  });
});
