import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { TI, federationWrite, fetchToken, prepareSite } from '../helpers/hardening-load.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { STORES, createTestDatabase } from '../helpers/stores.js';
import { Store } from '../../src/storage/store.js';

/**
 * Delivery under faults, with real server processes: PUSH_UPDATES updates in
 * all (default 100,000) keep coming while the server is killed with SIGKILL
 * again and again (PUSH_KILLS, default 5) and the receiver first answers 500
 * for PUSH_FAULT_MS (default 30 s), then is down as long, then comes back;
 * every change of the log must reach it answered 2xx (duplicates are counted
 * and reported), each asset's changes in order. Then two processes on one
 * PostgreSQL, the one delivering killed mid-delivery: the other takes over
 * and nothing is lost.
 */

const KILLS = Number(process.env.PUSH_KILLS ?? 5);
const UPDATES = Number(process.env.PUSH_UPDATES ?? 100_000);
const FAULT_MS = Number(process.env.PUSH_FAULT_MS ?? 30_000);
/** Every update is of one asset, ASSETS of them (one of each) to a batch request. */
const ASSETS = 40;
/** Batch requests under way at once. */
const BATCH_WORKERS = 4;
/** The longest the whole run of one store may take (its updates, faults and catching up). */
const RUN_LIMIT_MS = 12 * 60_000;
const WORKERS = 8;
const SITE = 'pushcity';
const SERVER_ENV = { NOTIFY_ALLOWED_HOSTS: '127.0.0.1', NOTIFY_TIMEOUT: '2s', LOG_LEVEL: 'info' };

type Mode = 'ok' | '500' | 'down';

/** A receiver that records what it answered 2xx, answers 500 when told, and can go down and come back on its port. */
class FaultyReceiver {
  mode: Mode = 'ok';
  /** (path, seq, asset) of every notification answered 2xx, in arrival order. */
  readonly delivered: Array<{ path: string; seq: number; asset: string }> = [];
  refused = 0;
  private server: http.Server | undefined;
  port = 0;

  async up(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.mode === '500') {
          this.refused++;
          res.statusCode = 500;
          res.end();
          return;
        }
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: Array<{ id: string }> };
        this.delivered.push({ path: req.url ?? '', seq: Number(req.headers['opencity-change-seq']), asset: body.data[0]?.id ?? '' });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async down(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }
}

async function subscribe(url: string, token: string, target: string): Promise<void> {
  const res = await fetch(`${url}/federation/v2/subscriptions`, {
    method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ subject: { entities: [{ idPattern: `^urn:oc:entity:${SITE}:` }] }, notification: { http: { url: target }, attrs: ['temperature'] } }),
  });
  assert.equal(res.status, 201, await res.text());
}

/** The seqs of the log's changes after `after`. */
async function loggedSeqs(databaseUrl: string, after: number): Promise<number[]> {
  const store = Store.open(databaseUrl);
  try {
    const rows = await store.read.selectFrom('changes').select('seq').where('seq', '>', after).orderBy('seq').execute();
    return rows.map((r) => Number(r.seq));
  } finally {
    await store.close();
  }
}

/** Waits until `done` holds, or the deadline passes. */
async function waitFor(done: () => boolean | Promise<boolean>, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end && !(await done())) await delay(200);
}

/** The last failure the (one) subscription recorded. */
async function failureReason(databaseUrl: string): Promise<string | null | undefined> {
  const store = Store.open(databaseUrl);
  try {
    return (await store.read.selectFrom('subscriptions').select('last_failure_reason').executeTakeFirst())?.last_failure_reason;
  } finally {
    await store.close();
  }
}

async function latestSeq(databaseUrl: string): Promise<number> {
  const store = Store.open(databaseUrl);
  try {
    return await store.changes.latest();
  } finally {
    await store.close();
  }
}

/** Sends `count` updates over the assets; how many were acknowledged. */
async function updates(url: string, token: string, count: number, from: number, stop: () => boolean = () => false): Promise<number> {
  let next = 0;
  let acked = 0;
  await Promise.all(Array.from({ length: WORKERS }, async () => {
    while (next < count && !stop()) {
      const i = next++;
      const status = await federationWrite(url, token, 'update', `urn:oc:entity:${SITE}:load:sensor:${i % ASSETS}`, from + i);
      if (status === 204) acked++;
    }
  }));
  return acked;
}

/** Sends `count` updates as batches of one update of each asset; how many updates were acknowledged. */
async function batchUpdates(url: string, token: string, count: number, from: number): Promise<number> {
  const batches = Math.ceil(count / ASSETS);
  let next = 0;
  let acked = 0;
  await Promise.all(Array.from({ length: BATCH_WORKERS }, async () => {
    while (next < batches) {
      const b = next++;
      const size = Math.min(ASSETS, count - b * ASSETS);
      const entities = Array.from({ length: size }, (_, k) => {
        const value = from + b * ASSETS + k;
        return { id: `urn:oc:entity:${SITE}:load:sensor:${k}`, type: 'urn:oc:entityType:crashtest', TimeInstant: TI(Date.UTC(2024, 0, 1) + value), temperature: { type: 'Number', value } };
      });
      try {
        const res = await fetch(`${url}/federation/v2/op/update`, {
          method: 'POST', body: JSON.stringify({ actionType: 'update', entities }),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'platform-service': 'opencity' },
        });
        await res.arrayBuffer();
        if (res.status === 204) acked += size;
      } catch {
        // A refused batch is not acknowledged; its changes may or may not be logged.
      }
    }
  }));
  return acked;
}

/** Waits until the receiver holds every seq of `expected` on every path, or the deadline passes. */
async function until(receiver: FaultyReceiver, paths: readonly string[], expected: readonly number[], deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const missing = paths.some((p) => {
      const got = new Set(receiver.delivered.filter((d) => d.path === p).map((d) => d.seq));
      return expected.some((s) => !got.has(s));
    });
    if (!missing) return;
    await delay(250);
  }
}

/** Missing and duplicated notifications per path, and whether each asset's changes came in order. */
function audit(receiver: FaultyReceiver, paths: readonly string[], expected: readonly number[]) {
  let missing = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  for (const path of paths) {
    const mine = receiver.delivered.filter((d) => d.path === path);
    const seen = new Set<number>();
    const lastOf = new Map<string, number>();
    for (const d of mine) {
      if (seen.has(d.seq)) {
        duplicates++;
        continue;
      }
      seen.add(d.seq);
      if ((lastOf.get(d.asset) ?? 0) > d.seq) outOfOrder++;
      lastOf.set(d.asset, d.seq);
    }
    missing += expected.filter((s) => !seen.has(s)).length;
  }
  return { missing, duplicates, outOfOrder };
}

async function seedAssets(url: string, token: string): Promise<void> {
  for (let i = 0; i < ASSETS; i++) assert.equal(await federationWrite(url, token, 'create', `urn:oc:entity:${SITE}:load:sensor:${i}`, i), 201);
}

for (const kind of STORES) {
  describe(`push under faults [${kind}]`, () => {
    it(`delivers every one of ${UPDATES} updates over ${KILLS} SIGKILLs, a receiver answering 500 for ${FAULT_MS / 1000} s and then down as long`, { timeout: RUN_LIMIT_MS + 60_000 }, async () => {
      const db = await createTestDatabase(kind);
      const secret = await prepareSite(db.url, SITE);
      const receiver = new FaultyReceiver();
      await receiver.up();
      const path = '/notify';
      // The receiver's state in each round: it answers, answers 500, is down, and is back for the last ones.
      const modes: Mode[] = ['ok', '500', 'down', 'ok', 'ok', 'ok'];
      let since = 0;
      let acked = 0;
      let sent = 0;
      const report: string[] = [];
      let server: ServerProcess | undefined;
      const began = Date.now();
      try {
        for (let round = 0; round <= KILLS; round++) {
          server = await startServer({ DATABASE_URL: db.url, ...SERVER_ENV });
          const token = await fetchToken(server.url, `ocsite-${SITE}`, secret);
          if (round === 0) {
            await seedAssets(server.url, token);
            since = await latestSeq(db.url);
            await subscribe(server.url, token, `http://127.0.0.1:${receiver.port}${path}`);
          }
          const mode = modes[Math.min(round, modes.length - 1)] as Mode;
          if (mode === 'down' && receiver.mode !== 'down') await receiver.down();
          if (mode !== 'down' && receiver.mode === 'down') await receiver.up();
          receiver.mode = mode;
          const faultBegan = Date.now();
          if (round === KILLS) break; // the last start delivers what is left
          const count = Math.floor(UPDATES / KILLS) + (round < UPDATES % KILLS ? 1 : 0);
          acked += await batchUpdates(server.url, token, count, sent);
          sent += count;
          // The receiver's fault is met before the kill (answers of 500, then refused connections), and lasts FAULT_MS.
          if (mode === '500') await waitFor(() => receiver.refused >= 3, FAULT_MS + 30_000);
          if (mode === 'down') await waitFor(async () => (await failureReason(db.url)) === 'connection refused', FAULT_MS + 30_000);
          if (mode !== 'ok') await delay(Math.max(0, faultBegan + FAULT_MS - Date.now()));
          process.kill(server.pid, 'SIGKILL');
          assert.equal(await server.exited, 'SIGKILL');
          report.push(`round ${round} (${mode}): killed at ${Date.now() - began} ms; ${receiver.delivered.length} notifications answered 2xx so far, ${receiver.refused} answered 500`);
        }
        const expected = await loggedSeqs(db.url, since);
        assert.ok(expected.length >= acked, `${expected.length} changes logged, ${acked} updates acknowledged`);
        await until(receiver, [path], expected, Math.max(60_000, began + RUN_LIMIT_MS - Date.now()));
        const { missing, duplicates, outOfOrder } = audit(receiver, [path], expected);
        report.push(`${sent} updates sent, ${acked} acknowledged; ${expected.length} changes, ${missing} missing, ${duplicates} duplicates, ${outOfOrder} out of order; ${receiver.refused} answered 500; ${Date.now() - began} ms in all`);
        process.stdout.write(`# push under faults [${kind}]: ${report.join('; ')}\n`);
        assert.equal(missing, 0);
        assert.equal(outOfOrder, 0);
        assert.ok(receiver.refused > 0, 'the receiver answered 500 at least once');
      } finally {
        await server?.stop('SIGKILL');
        await receiver.down();
        await db.drop();
      }
    });
  });
}

if (STORES.includes('postgres')) {
  describe('push from two processes on one PostgreSQL', () => {
    it('each change is delivered once the holder is killed mid-delivery; the survivor takes over within 30 s', { timeout: 40_000 }, async () => {
      const db = await createTestDatabase('postgres');
      const secret = await prepareSite(db.url, SITE);
      const receiver = new FaultyReceiver();
      await receiver.up();
      const paths = ['/a', '/b', '/c', '/d'];
      let a: ServerProcess | undefined;
      let b: ServerProcess | undefined;
      try {
        [a, b] = await Promise.all([startServer({ DATABASE_URL: db.url, ...SERVER_ENV }), startServer({ DATABASE_URL: db.url, ...SERVER_ENV })]);
        const tokenA = await fetchToken(a.url, `ocsite-${SITE}`, secret);
        const tokenB = await fetchToken(b.url, `ocsite-${SITE}`, secret);
        await seedAssets(a.url, tokenA);
        const since = await latestSeq(db.url);
        // Made through one process, the subscriptions are live on both within a second: both deliver some.
        for (const path of paths) await subscribe(a.url, tokenA, `http://127.0.0.1:${receiver.port}${path}`);
        await updates(b.url, tokenB, 400, 0);
        const store = Store.open(db.url);
        const holders = await store.read.selectFrom('subscriptions').select(['id', 'lease_holder']).execute().finally(() => store.close());
        const pids = new Set(holders.map((h) => Number(String(h.lease_holder).split(':')[1])));
        const victim = pids.has(a.pid) ? a : b;
        const survivor = victim === a ? b : a;
        const survivorToken = victim === a ? tokenB : tokenA;
        // Killed while updates (and so deliveries) are under way through both.
        let stop = false;
        const loading = updates(survivor.url, survivorToken, 100_000, 1000, () => stop);
        await delay(500);
        process.kill(victim.pid, 'SIGKILL');
        const killedAt = Date.now();
        await victim.exited;
        await delay(2000);
        stop = true;
        await loading;
        const expected = await loggedSeqs(db.url, since);
        await until(receiver, paths, expected, 30_000);
        const resumedWithin = Date.now() - killedAt;
        const { missing, duplicates, outOfOrder } = audit(receiver, paths, expected);
        process.stdout.write(`# two processes: killed pid ${victim.pid} holding ${holders.filter((h) => String(h.lease_holder).includes(`:${victim.pid}:`)).length} of ${paths.length} subscriptions; ${expected.length} changes per subscription, ${missing} missing, ${duplicates} duplicates; all delivered ${resumedWithin} ms after the kill\n`);
        assert.equal(missing, 0);
        assert.equal(outOfOrder, 0);
        assert.ok(resumedWithin < 32_000, `delivered everything ${resumedWithin} ms after the kill`);
      } finally {
        await a?.stop('SIGKILL');
        await b?.stop('SIGKILL');
        await receiver.down();
        await db.drop();
      }
    });
  });
}
