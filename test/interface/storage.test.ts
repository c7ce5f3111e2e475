import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { registerClient } from '../../src/identity/clients.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { findClient, listUsers } from '../../src/storage/repositories/principals.js';
import { findSite, upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';
import { runTs } from '../helpers/cli.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

for (const kind of STORES) {
  describe(`storage [${kind}]`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(kind);
    });
    after(async () => {
      await db.drop();
    });

    it('migrates an empty database to the latest schema, and again is a no-op', async () => {
      const store = Store.open(db.url);
      try {
        const applied = await store.migrate();
        assert.deepEqual(applied, MIGRATIONS.map((m) => m.name));
        assert.deepEqual(await store.migrate(), []);
        assert.equal(await store.ping(), true);
        // A store in the server's own process makes the server bound its heap more tightly (src/main.ts).
        assert.equal(store.livesInProcess, kind === 'sqlite');
      } finally {
        await store.close();
      }
    });

    it('keeps data and accepts old tokens across a restart', async () => {
      const clock = new ManualClock();
      const config = testConfig({ databaseUrl: db.url });
      const first = await buildApp({ config, clock });
      await upsertSite(first.ctx.store, { id: 'santander', name: 'Santander', type: 'city', latitude: 43.46, longitude: -3.8, countryCode: 'ES', country: 'Spain', city: 'Santander', quota: 10 }, clock.now());
      const creds = await registerClient(first.ctx.store, clock, { clientId: 'restart-client', roles: [{ role: 'ocsite', experiment: null }] });
      const tokenRes = await first.app.inject({
        method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `grant_type=client_credentials&client_id=restart-client&client_secret=${creds.secret}`,
      });
      assert.equal(tokenRes.statusCode, 200);
      const token = tokenRes.json().access_token as string;
      await first.app.close();

      const second = await buildApp({ config, clock });
      try {
        assert.equal((await findSite(second.ctx.store, 'santander'))?.quota, 10);
        assert.equal((await findClient(second.ctx.store, 'restart-client'))?.id, 'restart-client');
        const caller = await second.ctx.verifier.verify(token);
        assert.equal(caller.clientId, 'restart-client');
        assert.deepEqual(caller.roles, ['ocsite']);
      } finally {
        await second.app.close();
      }
    });

    it('loses nothing when two processes write concurrently', async () => {
      const store = Store.open(db.url);
      await store.migrate();
      await store.close();
      const [a, b] = await Promise.all([
        runTs('test/helpers/writer-process.ts', [db.url, 'proc-a', '300']),
        runTs('test/helpers/writer-process.ts', [db.url, 'proc-b', '300']),
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const check = Store.open(db.url);
      try {
        const users = await listUsers(check, 0, 10_000);
        assert.equal(users.filter((u) => u.id.startsWith('proc-a-')).length, 300);
        assert.equal(users.filter((u) => u.id.startsWith('proc-b-')).length, 300);
      } finally {
        await check.close();
      }
    });
  });
}
