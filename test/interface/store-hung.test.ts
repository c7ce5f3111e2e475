import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OpenCity } from '../../src/app.js';
import { AppError } from '../../src/domain/errors.js';
import { registerClient } from '../../src/identity/clients.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.js';
import { adminAccessToken, holdWriteLock, startBounded } from '../helpers/bounded-store.js';
import { tokenRequest } from '../helpers/identity.js';

/**
 * STORE_TIMEOUT: a store that does not answer (a lock held elsewhere, a hung database) is answered
 * like an unreachable one, 503 with Retry-After, within the bound. The tests' own time limits catch
 * a request that would hang instead.
 */
const BOUNDED = { timeout: 8000 };

const assertStoreRefusal = (res: { statusCode: number; headers: Record<string, unknown>; json(): { error?: string } }, what: string) => {
  assert.equal(res.statusCode, 503, what);
  assert.equal(res.headers['retry-after'], '1', what);
  // NGSI-style bodies name the kind; the permissions interface's bodies carry the message.
  assert.match(String(res.json().error), /^ServiceUnavailable$|^The store /, what);
};

for (const kind of STORES) {
  describe(`a store that does not answer in time [${kind}]`, () => {
    let db: TestDatabase;
    let started: Awaited<ReturnType<typeof startBounded>>;
    let platform: OpenCity;
    let admin = '';

    before(async () => {
      db = await createTestDatabase(kind);
      started = await startBounded(db.url);
      platform = started.platform;
      admin = await adminAccessToken(platform);
    });
    after(async () => {
      await started.close();
      await db.drop();
    });

    const createClient = (clientId: string) => platform.app.inject({
      method: 'POST', url: '/permissions/clients', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ clientId, clientName: clientId }),
    });

    it('answers a write that waits for a lock held elsewhere with 503 and Retry-After, then writes again', BOUNDED, async () => {
      const release = await holdWriteLock(db);
      try {
        assertStoreRefusal(await createClient('blocked-tool'), 'while the lock is held');
      } finally {
        await release();
      }
      assert.equal((await createClient('blocked-tool')).statusCode, 201);
    });

    it('refuses a write still waiting for its turn when its bound is up, and writes nothing of it', BOUNDED, async () => {
      const store = platform.ctx.store;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => { open = resolve; });
      const first = store.writes.run(async () => gate);
      await new Promise((resolve) => setImmediate(resolve));
      const second = store.writes.run((trx) => trx.insertInto('asset_types').values({ id: 'urn:oc:entityType:neverSent', description: '' }).execute());
      const refusal = await second.then(() => undefined, (error: unknown) => error);
      open();
      await first;
      assert.ok(refusal instanceof AppError);
      assert.equal(refusal.code, 'STORE_UNAVAILABLE');
      assert.equal(refusal.facts.retryAfterSeconds, 1);
      assert.match(refusal.message, /nothing was written/);
      const rows = await store.read.selectFrom('asset_types').select('id').where('id', '=', 'urn:oc:entityType:neverSent').execute();
      assert.deepEqual(rows, []);
    });
  });
}

// Only PostgreSQL lies at the other end of a network that can hang.
if (STORES.includes('postgres')) {
  describe('a PostgreSQL database that hangs (a network black hole)', () => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let started: Awaited<ReturnType<typeof startBounded>>;
    let platform: OpenCity;
    let secret = '';

    before(async () => {
      db = await createTestDatabase('postgres');
      const through = await proxyInFront(db.url);
      proxy = through.proxy;
      started = await startBounded(through.url);
      platform = started.platform;
      secret = (await registerClient(platform.ctx.store, started.clock, { clientId: 'hung-client' })).secret;
    });
    after(async () => {
      proxy.thaw();
      await started.close();
      await proxy.stop();
      await db.drop();
    });

    const grant = () => tokenRequest(platform.app, { grant_type: 'client_credentials', client_id: 'hung-client', client_secret: secret });

    it('answers /ready with 503, and requests with 503 and Retry-After, while the database hangs', BOUNDED, async () => {
      assert.equal((await grant()).statusCode, 200);
      proxy.freeze();
      const ready = await platform.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().error, 'ServiceUnavailable');
      assertStoreRefusal(await grant(), 'a read on a hung connection');
      assertStoreRefusal(await grant(), 'a read waiting for a connection');
      assert.equal((await platform.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    });

    it('recovers by itself when the database answers again', BOUNDED, async () => {
      proxy.thaw();
      let ready = 503;
      // Connections whose statements were cut are discarded one by one as they are next used.
      for (let i = 0; i < 20 && ready !== 200; i++) ready = (await platform.app.inject({ method: 'GET', url: '/ready' })).statusCode;
      assert.equal(ready, 200);
      let granted = 503;
      for (let i = 0; i < 20 && granted !== 200; i++) granted = (await grant()).statusCode;
      assert.equal(granted, 200);
    });

    it('reports a write whose commit answer was lost as committed, when the database says it committed', BOUNDED, async () => {
      const store = platform.ctx.store;
      const value = await store.writes.run(async (trx) => {
        await trx.insertInto('asset_types').values({ id: 'urn:oc:entityType:lostAnswer', description: '' }).execute();
        // From here the connection's answers are lost: the commit reaches the database, its answer never comes back.
        proxy.loseRepliesOfOpenConnections();
        return 'written';
      });
      assert.equal(value, 'written');
      // The connections whose answers are lost are dropped; new ones see the committed row.
      proxy.cut();
      proxy.restore();
      let rows: unknown[] = [];
      for (let i = 0; i < 20 && rows.length === 0; i++) {
        rows = await store.read.selectFrom('asset_types').select('id').where('id', '=', 'urn:oc:entityType:lostAnswer').execute().catch(() => []);
      }
      assert.deepEqual(rows, [{ id: 'urn:oc:entityType:lostAnswer' }]);
    });
  });
}
