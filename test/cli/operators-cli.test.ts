import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig, VARIABLES } from '../../src/config.js';
import { Store } from '../../src/storage/store.js';
import { ROOT, opencity } from '../helpers/cli.js';
import { basic, tokenRequest } from '../helpers/identity.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/**
 * The operators' commands against a store a server uses at the same time. Each test makes the
 * sites, clients and users it reads, under names of its own.
 */

const json = <T>(text: string): T => JSON.parse(text) as T;

describe('opencity without a store', () => {
  it('--version prints the package version', async () => {
    const r = await opencity('sqlite::memory:', '--version');
    assert.equal(r.code, 0, r.stderr);
    const pkg = json<{ version: string }>(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(r.stdout.trim(), pkg.version);
  });

  it('serve --help lists every environment variable with its default', async () => {
    const r = await opencity('sqlite::memory:', 'serve', '--help');
    assert.equal(r.code, 0, r.stderr);
    for (const [name, v] of Object.entries(VARIABLES)) {
      assert.match(r.stdout, new RegExp(`^ +${name} .*\\(default: ${v.default.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`, 'm'), name);
    }
  });

  it('a failure with --json is one JSON line on standard error and a non-zero exit', async () => {
    const r = await opencity('sqlite::memory:', 'site', 'add', 'a:b', '--name', 'X', '--lat', '1', '--lon', '0', '--json');
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(json<{ error: string }>(lines[0] as string).error, /invalid site id/);
  });
});

for (const kind of STORES) {
  describe(`operators' commands [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    let server: OpenCity;

    before(async () => {
      db = await createTestDatabase(kind);
      store = Store.open(db.url);
      server = await buildApp({ config: testConfig({ databaseUrl: db.url }), store });
    });
    after(async () => {
      await server.app.close();
      await store.close();
      await db.drop();
    });

    const run = (...args: string[]) => opencity(db.url, ...args);
    const addSite = async (id: string, ...extra: string[]): Promise<{ client_id: string; secret: string }> => {
      const r = await run('site', 'add', id, '--name', `Site ${id}`, '--lat', '43.46', '--lon', '-3.81', ...extra, '--json');
      assert.equal(r.code, 0, r.stderr);
      return json(r.stdout);
    };
    const siteOf = async (id: string) => {
      const r = await run('site', 'list', '--json');
      assert.equal(r.code, 0, r.stderr);
      return json<Array<Record<string, unknown>>>(r.stdout).find((s) => s.id === id);
    };
    const tokenFor = async (clientId: string, secret: string) =>
      tokenRequest(server.app, { grant_type: 'client_credentials' }, basic(clientId, secret));
    const pushAsset = async (site: string, token: string, n: number) => {
      const id = `urn:oc:entity:${site}:noise:x:${n}`;
      const res = await server.app.inject({
        method: 'POST', url: '/federation/v2/entities',
        headers: { authorization: `Bearer ${token}`, 'platform-service': 'opencity', 'content-type': 'application/json' },
        payload: {
          id, type: 'urn:oc:entityType:iotdevice',
          TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2017-07-25T13:35:00.000Z' },
          'sound:level': { type: 'urn:oc:attributeType:sound:level', value: 40 + n },
        },
      });
      assert.equal(res.statusCode, 201, res.body);
      return id;
    };

    it('site add on an existing site fails clearly and changes nothing', async () => {
      await addSite('keepme', '--country-code', 'ES', '--country', 'Spain', '--city', 'Santander', '--quota', '7');
      const r = await run('site', 'add', 'keepme', '--name', 'Other', '--lat', '1', '--lon', '2');
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^opencity: site keepme already exists; nothing changed \(opencity site update keepme changes it\)\n$/);
      assert.doesNotMatch(r.stdout, /secret/);
      const site = await siteOf('keepme');
      assert.deepEqual({ ...site, createdAt: 0 }, {
        id: 'keepme', name: 'Site keepme', type: 'city', latitude: 43.46, longitude: -3.81, countryCode: 'ES', country: 'Spain',
        city: 'Santander', quota: 7, createdAt: 0, liveAssets: 0,
      });
    });

    it('site update changes only what is given', async () => {
      await addSite('tochange', '--country-code', 'ES', '--country', 'Spain', '--city', 'Santander');
      const r = await run('site', 'update', 'tochange', '--name', 'Renamed', '--quota', '12', '--json');
      assert.equal(r.code, 0, r.stderr);
      const site = json<Record<string, unknown>>(r.stdout);
      assert.equal(site.name, 'Renamed');
      assert.equal(site.quota, 12);
      assert.equal(site.countryCode, 'ES');
      assert.equal(site.country, 'Spain');
      assert.equal(site.city, 'Santander');
      assert.equal(site.latitude, 43.46);
      const missing = await run('site', 'update', 'nosuchsite', '--name', 'X');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no site nosuchsite/);
      const nothing = await run('site', 'update', 'tochange');
      assert.equal(nothing.code, 2);
      assert.match(nothing.stderr, /nothing to change/);
    });

    it('site remove is refused while the site has assets; --delete-assets deletes them as federation does and keeps the history', async () => {
      const creds = await addSite('toremove');
      const token = json<{ access_token: string }>((await tokenFor(creds.client_id, creds.secret)).body).access_token;
      const ids = [await pushAsset('toremove', token, 1), await pushAsset('toremove', token, 2)];
      assert.equal((await siteOf('toremove'))?.liveAssets, 2);

      const refused = await run('site', 'remove', 'toremove');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /site toremove has 2 assets; nothing removed/);
      assert.ok(await siteOf('toremove'));

      const r = await run('site', 'remove', 'toremove', '--delete-assets', '--json');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(json(r.stdout), { site: 'toremove', deletedAssets: 2, clientRemoved: true });
      assert.equal(await siteOf('toremove'), undefined);
      const rows = await store.read.selectFrom('assets').select(['id', 'deleted_at']).where('site', '=', 'toremove').orderBy('id').execute();
      assert.deepEqual(rows.map((row) => [row.id, row.deleted_at !== null]), ids.map((id) => [id, true]));
      const deletes = await store.read.selectFrom('changes').select('asset_id').where('site', '=', 'toremove').where('kind', '=', 'delete').execute();
      assert.equal(deletes.length, 2);
      const readings = await store.read.selectFrom('readings').select((eb) => eb.fn.countAll<string | number>().as('n'))
        .where('asset_seq', 'in', store.read.selectFrom('assets').select('seq').where('site', '=', 'toremove')).executeTakeFirstOrThrow();
      assert.ok(Number(readings.n) > 0, 'the history is kept');
      assert.equal((await tokenFor(creds.client_id, creds.secret)).statusCode, 401);
    });

    it('client reset-secret prints a new secret once; the old one stops working at once', async () => {
      const add = await run('client', 'add', 'lost-secret', '--role', 'experimenter', '--json');
      assert.equal(add.code, 0, add.stderr);
      const old = json<{ secret: string }>(add.stdout).secret;
      assert.equal((await tokenFor('lost-secret', old)).statusCode, 200);
      const r = await run('client', 'reset-secret', 'lost-secret', '--json');
      assert.equal(r.code, 0, r.stderr);
      const fresh = json<{ client_id: string; secret: string }>(r.stdout);
      assert.equal(fresh.client_id, 'lost-secret');
      assert.notEqual(fresh.secret, old);
      assert.equal((await tokenFor('lost-secret', old)).statusCode, 401);
      assert.equal((await tokenFor('lost-secret', fresh.secret)).statusCode, 200);
      const missing = await run('client', 'reset-secret', 'nobody-here');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no client nobody-here/);
      const observatory = await run('client', 'reset-secret', 'opencity-observatory');
      assert.equal(observatory.code, 1);
      assert.match(observatory.stderr, /public/);
    });

    it('client list shows clients with their roles; client remove removes one with its service account', async () => {
      const add = await run('client', 'add', 'short-lived', '--role', 'provider', '--json');
      assert.equal(add.code, 0, add.stderr);
      const secret = json<{ secret: string }>(add.stdout).secret;
      const list = await run('client', 'list', '--json');
      assert.equal(list.code, 0, list.stderr);
      const listed = json<Array<{ id: string; confidential: boolean; roles: Array<{ role: string }> }>>(list.stdout);
      assert.deepEqual(listed.find((c) => c.id === 'short-lived')?.roles, [{ role: 'provider', experiment: null }]);
      assert.equal(listed.find((c) => c.id === 'opencity-observatory')?.confidential, false);
      const r = await run('client', 'remove', 'short-lived', '--json');
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(json(r.stdout), { client_id: 'short-lived', removed: true });
      assert.equal((await tokenFor('short-lived', secret)).statusCode, 401);
      const users = await store.read.selectFrom('users').select('id').where('username', '=', 'service-account-short-lived').execute();
      assert.deepEqual(users, []);
      const again = await run('client', 'remove', 'short-lived');
      assert.equal(again.code, 1);
      const bootstrap = await run('client', 'remove', 'opencity-admin');
      assert.equal(bootstrap.code, 1);
      assert.match(bootstrap.stderr, /bootstrap client/);
    });

    it('user add refuses a password under 8 characters; user list and user passwd', async () => {
      const short = await run('user', 'add', 'shorty', '--email', 'shorty@example.org', '--password', 'ab');
      assert.equal(short.code, 2);
      assert.match(short.stderr, /^opencity: the password is too short: at least 8 characters, got 2\n$/);
      const add = await run('user', 'add', 'carol', '--email', 'carol@example.org', '--password', 'first-password', '--role', 'experimenter', '--json');
      assert.equal(add.code, 0, add.stderr);
      const list = await run('user', 'list', '--json');
      assert.equal(list.code, 0, list.stderr);
      const carol = json<Array<{ username: string; email: string; roles: unknown }>>(list.stdout).find((u) => u.username === 'carol');
      assert.deepEqual({ email: carol?.email, roles: carol?.roles }, { email: 'carol@example.org', roles: [{ role: 'experimenter', experiment: null }] });
      assert.ok(!json<Array<{ username: string }>>(list.stdout).some((u) => u.username.startsWith('service-account-')));

      const app = await run('client', 'add', 'carol-app', '--json');
      assert.equal(app.code, 0, app.stderr);
      const appSecret = json<{ secret: string }>(app.stdout).secret;
      const login = (password: string) => tokenRequest(server.app, { grant_type: 'password', username: 'carol', password }, basic('carol-app', appSecret));
      assert.equal((await login('first-password')).statusCode, 200);
      const tooShort = await run('user', 'passwd', 'carol', '--password', 'short');
      assert.equal(tooShort.code, 2);
      assert.match(tooShort.stderr, /at least 8 characters, got 5/);
      const set = await run('user', 'passwd', 'carol', '--password', 'second-password', '--json');
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(json(set.stdout), { name: 'carol' });
      assert.equal((await login('first-password')).statusCode, 400);
      assert.equal((await login('second-password')).statusCode, 200);
      const made = await run('user', 'passwd', 'carol', '--json');
      assert.equal(made.code, 0, made.stderr);
      const { password } = json<{ password: string }>(made.stdout);
      assert.ok(password.length >= 8);
      assert.equal((await login(password)).statusCode, 200);
      const missing = await run('user', 'passwd', 'nobody', '--password', 'long-enough');
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no user nobody/);
    });
  });
}
