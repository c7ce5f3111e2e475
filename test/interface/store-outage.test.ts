import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { registerClient } from '../../src/identity/clients.js';
import { Store } from '../../src/storage/store.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.js';

// Only PostgreSQL can go away under a running server; SQLite is a file in the process.
if (STORES.includes('postgres')) {
  describe('a PostgreSQL store that goes away and comes back', () => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let platform: OpenCity;
    let secret: string;

    before(async () => {
      db = await createTestDatabase('postgres');
      const through = await proxyInFront(db.url);
      proxy = through.proxy;
      platform = await buildApp({ config: testConfig({ databaseUrl: through.url }), store: Store.open(through.url) });
      secret = (await registerClient(platform.ctx.store, { now: () => Date.now() }, { clientId: 'outage-client' })).secret;
    });

    after(async () => {
      proxy.restore();
      await platform.app.close();
      await platform.ctx.store.close();
      await proxy.stop();
      await db.drop();
    });

    const grant = () => platform.app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&client_id=outage-client&client_secret=${secret}`,
    });

    it('is ready while the database answers', async () => {
      assert.equal((await platform.app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
      assert.equal((await grant()).statusCode, 200);
    });

    it('turns /ready to 503 and answers requests with a 503 JSON error while it is gone', async () => {
      proxy.cut();
      const ready = await platform.app.inject({ method: 'GET', url: '/ready' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().error, 'ServiceUnavailable');
      const res = await grant();
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.json().error, 'ServiceUnavailable');
      assert.equal((await platform.app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    });

    it('recovers by itself when the database is back', async () => {
      proxy.restore();
      assert.equal((await platform.app.inject({ method: 'GET', url: '/ready' })).statusCode, 200);
      assert.equal((await grant()).statusCode, 200);
    });
  });
}
