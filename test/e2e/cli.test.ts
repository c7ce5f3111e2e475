import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { opencity } from '../helpers/cli.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

for (const kind of STORES) {
  describe(`opencity command [${kind}]`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(kind);
    });
    after(async () => {
      await db.drop();
    });

    // Every command migrates the store first, so only a store of its own is fresh whatever ran before.
    it('migrates a fresh store', async () => {
      const fresh = await createTestDatabase(kind);
      try {
        const r = await opencity(fresh.url, 'migrate', '--json');
        assert.equal(r.code, 0, r.stderr);
        assert.ok((JSON.parse(r.stdout) as { applied: string[] }).applied.includes('0001-initial'));
      } finally {
        await fresh.drop();
      }
    });

    it('adds a site and prints its client credentials as JSON', async () => {
      const r = await opencity(db.url, 'site', 'add', 'santander', '--name', 'Santander', '--lat', '43.4623', '--lon', '-3.80998', '--country-code', 'ES', '--quota', '5', '--json');
      assert.equal(r.code, 0, r.stderr);
      const creds = JSON.parse(r.stdout) as { client_id: string; secret: string };
      assert.equal(creds.client_id, 'ocsite-santander');
      assert.match(creds.secret, /^[A-Za-z0-9_-]{43}$/);
      const token = await opencity(db.url, 'token', creds.client_id, creds.secret, '--json');
      assert.equal(token.code, 0, token.stderr);
      assert.equal((JSON.parse(token.stdout) as { token_type: string }).token_type, 'Bearer');
    });

    it('refuses a second site add with the same id (the secret is never shown again)', async () => {
      const first = await opencity(db.url, 'site', 'add', 'aarhus', '--name', 'Aarhus', '--lat', '56.15', '--lon', '10.2');
      assert.equal(first.code, 0, first.stderr);
      const r = await opencity(db.url, 'site', 'add', 'aarhus', '--name', 'Aarhus', '--lat', '56.15', '--lon', '10.2');
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /already exists/);
      assert.doesNotMatch(r.stdout, /secret/);
    });

    it('adds a client with roles and permissions', async () => {
      const r = await opencity(db.url, 'client', 'add', 'scenarios', '--role', 'provider', '--permission', 'accounts-permissions:readLocalRoles', '--json');
      assert.equal(r.code, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as { client_id: string }).client_id, 'scenarios');
    });

    it('adds a user and prints {id, name}', async () => {
      const r = await opencity(db.url, 'user', 'add', 'alice', '--email', 'alice@example.org', '--password', 'correct horse', '--role', 'participant@exp1', '--json');
      assert.equal(r.code, 0, r.stderr);
      const user = JSON.parse(r.stdout) as { id: string; name: string };
      assert.equal(user.name, 'alice');
      assert.match(user.id, /^[0-9a-f-]{36}$/);
    });

    for (const [what, args, message] of [
      ['a latitude out of range', ['site', 'add', 'x', '--name', 'X', '--lat', '95', '--lon', '0'], /--lat/],
      ['a site id with a colon', ['site', 'add', 'a:b', '--name', 'X', '--lat', '1', '--lon', '0'], /invalid site id/],
      ['a missing --name', ['site', 'add', 'x', '--lat', '1', '--lon', '0'], /--name/],
      ['a participant without experiment', ['user', 'add', 'bob', '--email', 'bob@example.org', '--role', 'participant'], /experiment/],
      ['a bad e-mail', ['user', 'add', 'bob', '--email', 'nope'], /e-mail/],
      ['a bad role name', ['client', 'add', 'c1', '--role', '1bad'], /invalid role/],
      ['a wrong secret', ['token', 'ocsite-santander', 'wrong'], /invalid client credentials/],
      ['an unknown command', ['frobnicate'], /unknown command/],
    ] as const) {
      it(`fails clearly on ${what}`, async () => {
        const r = await opencity(db.url, ...args);
        assert.notEqual(r.code, 0);
        assert.match(r.stderr, message);
      });
    }

    it('prints help for every command', async () => {
      for (const args of [['--help'], ['site', 'add', '--help'], ['client', 'add', '--help'], ['user', 'add', '--help'], ['token', '--help'], ['migrate', '--help']]) {
        const r = await opencity(db.url, ...args);
        assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout, /Usage: opencity/);
      }
    });
  });
}
