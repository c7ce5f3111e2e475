import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenCity } from '../../src/app.js';
import { OUTAGE_SUMMARY_MS } from '../../src/http/store-outage-log.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.js';
import { adminAccessToken, holdWriteLock, startBounded, type LogLines } from '../helpers/bounded-store.js';

/**
 * A store outage is logged once when it starts, in a summary while it lasts and once when it
 * ends, however many requests it refuses: the log lines are counted as the app writes them.
 */
const STARTED = /^store outage: /;
const GOES_ON = /^store outage goes on$/;
const OVER = /^store outage over/;

for (const kind of STORES) {
  describe(`the log of a store outage [${kind}]`, () => {
    let db: TestDatabase;
    let proxy: TcpProxy | undefined;
    let started: Awaited<ReturnType<typeof startBounded>>;
    let platform: OpenCity;
    let log: LogLines;
    let admin = '';
    let endOutage: () => Promise<void> = async () => {};

    before(async () => {
      db = await createTestDatabase(kind);
      let url = db.url;
      if (kind === 'postgres') {
        // PostgreSQL goes away behind a proxy; a SQLite file stays, and its outage is a write lock held elsewhere.
        ({ proxy, url } = await proxyInFront(db.url));
      }
      started = await startBounded(url);
      ({ platform, log } = started);
      admin = await adminAccessToken(platform);
    });
    after(async () => {
      proxy?.restore();
      await started.close();
      await proxy?.stop();
      await db.drop();
    });

    let made = 0;
    const write = () => platform.app.inject({
      method: 'POST', url: '/permissions/clients', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ clientId: `outage-tool-${made++}` }),
    });
    /** Many requests at once while the store is out; every one is refused. */
    async function refusedMany(count: number): Promise<void> {
      const answers = await Promise.all(Array.from({ length: count }, () => write()));
      assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [503]);
    }
    async function startOutage(): Promise<void> {
      if (proxy) {
        proxy.cut();
        endOutage = async () => proxy?.restore();
      } else endOutage = await holdWriteLock(db);
    }

    it('logs one line when the outage starts, none per refused request, and no stack', async () => {
      assert.equal((await write()).statusCode, 201);
      await startOutage();
      await refusedMany(kind === 'postgres' ? 200 : 20);
      assert.equal(log.count(STARTED), 1);
      assert.equal(log.count(/request failed/), 0);
      assert.equal(log.lines.filter((l) => JSON.stringify(l).includes('stack')).length, 0);
      const first = log.lines.find((l) => STARTED.test(String(l.msg)));
      assert.equal(first?.level, 50);
      assert.ok((first?.storeError as { message?: string }).message);
    });

    it('sums the refusals up while it lasts, at most once per interval', async () => {
      await refusedMany(10);
      assert.equal(log.count(GOES_ON), 0);
      started.clock.advance(OUTAGE_SUMMARY_MS);
      await refusedMany(10);
      assert.equal(log.count(GOES_ON), 1);
      const summary = log.lines.find((l) => GOES_ON.test(String(l.msg)));
      assert.ok(Number(summary?.refused) >= 11);
      assert.equal(summary?.outageSeconds, OUTAGE_SUMMARY_MS / 1000);
    });

    it('logs one line when the store answers again, and the next outage is logged anew', async () => {
      await endOutage();
      let status = 503;
      for (let i = 0; i < 20 && status !== 201; i++) status = (await write()).statusCode;
      assert.equal(status, 201);
      await log.next(OVER);
      assert.equal(log.count(OVER), 1);
      assert.equal(log.count(STARTED), 1);
      await startOutage();
      await refusedMany(5);
      assert.equal(log.count(STARTED), 2);
      await endOutage();
    });
  });
}
