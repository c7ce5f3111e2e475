import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/**
 * The one-file build that `npm start` and the `opencity` command run
 * (scripts/bundle.mjs → dist/bin/opencity.js): built here, then started as a
 * user starts it, and asked what every interface needs from the start. It is
 * built beside dist/bin, at the same depth, so that the commands other tests
 * run from dist/bin meanwhile are never rewritten under them.
 */
const OUT = path.join(ROOT, 'dist', `bundle-test-${process.pid}`);
const BIN = path.join(OUT, 'opencity.js');

describe('the bundled server (npm start)', () => {
  let db: TestDatabase;
  let server: ServerProcess;
  let adminSecret = '';

  before(async () => {
    const bundle = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs'), OUT], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(bundle.status, 0, bundle.stderr);
    db = await createTestDatabase('sqlite');
    server = await startServer({ DATABASE_URL: db.url }, 60_000, [BIN, 'serve']);
    adminSecret = /secret:\s+(\S+)/.exec(server.output())?.[1] ?? '';
  });

  after(async () => {
    await server?.stop('SIGTERM');
    await db?.drop();
    fs.rmSync(OUT, { recursive: true, force: true });
  });

  it('answers its commands\' help', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    for (const command of ['serve', 'migrate', 'site', 'client', 'user', 'demo']) assert.match(help.stdout, new RegExp(`\\b${command}\\b`));
  });

  it('serves one process only, with its store migrated and its bootstrap client made', async () => {
    assert.equal((server.output().match(/Server listening at/g) ?? []).length, 1);
    assert.equal((server.output().match(/Bootstrap client created/g) ?? []).length, 1);
    assert.match(adminSecret, /^[\w-]{20,}$/);
    const health = await fetch(`${server.url}/health`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    assert.equal((await fetch(`${server.url}/ready`)).status, 200);
  });

  it('issues a token and takes it on every interface', async () => {
    const grant = await fetch(`${server.url}/auth/realms/opencity/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`opencity-admin:${adminSecret}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    assert.equal(grant.status, 200);
    const { access_token: token } = (await grant.json()) as { access_token: string };
    const auth = { authorization: `Bearer ${token}` };
    const users = await fetch(`${server.url}/permissions/users?count=5`, { headers: auth });
    assert.equal(users.status, 200);
    const assets = await fetch(`${server.url}/discovery/v0/assets?per=5`, { headers: auth });
    assert.equal(assets.status, 200);
    assert.deepEqual(await assets.json(), []);
    const missing = await fetch(`${server.url}/datasource/urn:oc:entity:santander:x:y:1/readings`, { headers: auth });
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /^application\/json/);
    // A write route validates its request with the schemas compiled on first use.
    const refused = await fetch(`${server.url}/federation/v2/entities`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'platform-service': 'opencity' }, body: '[]' });
    assert.equal(refused.status, 403);
  });

  it('serves the OpenAPI document, the API browser and the observatory page', async () => {
    const openapi = await fetch(`${server.url}/docs/json`);
    assert.equal(openapi.status, 200);
    const document = (await openapi.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.match(document.openapi, /^3\.1/);
    for (const p of ['/federation/v2/entities', '/permissions/users', '/discovery/v0/assets', '/datasource/{assetId}/readings']) assert.ok(p in document.paths, p);
    assert.equal((await fetch(`${server.url}/docs/`)).status, 200);
    const page = await fetch(`${server.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  });

  it('stops cleanly on SIGTERM', async () => {
    assert.equal(await server.stop('SIGTERM'), 0);
  });
});
