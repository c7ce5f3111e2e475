import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { Store } from '../../src/storage/store.js';
import { opencity } from '../helpers/cli.js';
import { fetchToken } from '../helpers/hardening-load.js';
import { startServer } from '../helpers/hardening-server.js';
import { STORES, createTestDatabase } from '../helpers/stores.js';

/**
 * The admin secret cannot be lost: a first start that ends after creating
 * opencity-admin but before printing its secret leaves a store whose next
 * starts say so, and how to give it a new one; once reset (or once printed) they
 * say nothing more.
 */

const RECOVERY = /opencity-admin exists, but the secret generated for it was never shown[\s\S]*npx opencity client reset-secret opencity-admin/;

/** A start that created the bootstrap clients and ended before printing anything. */
async function startEndedBeforePrinting(url: string): Promise<void> {
  const store = Store.open(url);
  const { app, generatedAdminSecret } = await buildApp({ config: testConfig({ databaseUrl: url }), store });
  assert.ok(generatedAdminSecret, 'the first start generates the secret');
  await app.close();
  await store.close();
}

/** The output of a real server's start on this store, once it listens. */
async function startOutput(url: string): Promise<string> {
  const server = await startServer({ DATABASE_URL: url });
  try {
    return server.output();
  } finally {
    await server.stop('SIGTERM');
  }
}

for (const kind of STORES) {
  describe(`admin secret never shown [${kind}]`, () => {
    it('the next starts say how to recover it; reset-secret gives a working one, after which they say nothing', async () => {
      const db = await createTestDatabase(kind);
      try {
        await startEndedBeforePrinting(db.url);
        const first = await startOutput(db.url);
        assert.match(first, RECOVERY);
        assert.doesNotMatch(first, /Bootstrap client created/);

        const reset = await opencity(db.url, 'client', 'reset-secret', 'opencity-admin', '--json');
        assert.equal(reset.code, 0, reset.stderr);
        const { secret } = JSON.parse(reset.stdout) as { secret: string };
        const server = await startServer({ DATABASE_URL: db.url });
        try {
          assert.doesNotMatch(server.output(), RECOVERY);
          assert.ok((await fetchToken(server.url, 'opencity-admin', secret)).length > 0);
        } finally {
          await server.stop('SIGTERM');
        }
      } finally {
        await db.drop();
      }
    });

    it('a first start that printed the secret records it: the next start says nothing of it', async () => {
      const db = await createTestDatabase(kind);
      try {
        const first = await startOutput(db.url);
        assert.match(first, /Bootstrap client created\. Keep this secret now/);
        assert.doesNotMatch(first, RECOVERY);
        const next = await startOutput(db.url);
        assert.doesNotMatch(next, RECOVERY);
        assert.doesNotMatch(next, /Bootstrap client created/);
      } finally {
        await db.drop();
      }
    });
  });
}
