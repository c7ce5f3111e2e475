import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { Store } from '../../src/storage/store.js';
import { opencityCommand } from '../helpers/cli.js';
import { bearer } from '../helpers/platform.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { basic, decodeHeader, decodePayload, tokenRequest } from '../helpers/identity.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PUBLIC_URL = 'http://127.0.0.1:8080';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function opencity(databaseUrl: string, args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...opencityCommand(), ...args], {
      cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl, PUBLIC_URL, LOG_LEVEL: 'silent' }, stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

for (const kind of STORES) {
  describe(`identity commands [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    let server: OpenCity;
    /** The secret of `cli-tool`, the client every token test asks for tokens as. */
    let secret = '';

    before(async () => {
      db = await createTestDatabase(kind);
      store = Store.open(db.url);
      // A server runs on the same store while the commands run, as in production.
      server = await buildApp({ config: testConfig({ databaseUrl: db.url, publicUrl: PUBLIC_URL }), store });
      const added = await opencity(db.url, ['client', 'add', 'cli-tool', '--role', 'experimenter', '--permission', 'cli-tool:read', '--json']);
      assert.equal(added.code, 0, added.stderr);
      secret = (JSON.parse(added.stdout) as { secret: string }).secret;
    });
    after(async () => {
      await server.app.close();
      await store.close();
      await db.drop();
    });

    it('client add prints credentials the token endpoint accepts at once', async () => {
      const run = await opencity(db.url, ['client', 'add', 'cli-added', '--role', 'experimenter', '--permission', 'cli-added:read', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const creds = JSON.parse(run.stdout);
      assert.equal(creds.client_id, 'cli-added');
      const res = await tokenRequest(server.app, { grant_type: 'client_credentials' }, basic('cli-added', creds.secret));
      assert.equal(res.statusCode, 200);
    });

    it('token prints an access token the server accepts (--json: the whole response)', async () => {
      const plain = await opencity(db.url, ['token', 'cli-tool', secret]);
      assert.equal(plain.code, 0, plain.stderr);
      const firstToken = plain.stdout.trim();
      assert.match(firstToken, /^[\w-]+\.[\w-]+\.[\w-]+$/);
      const claims = decodePayload(firstToken);
      assert.equal(claims.clientId, 'cli-tool');
      assert.equal(claims.iss, `${PUBLIC_URL}/auth/realms/opencity`);
      assert.deepEqual(claims.resource_access, { 'cli-tool': { roles: ['read'] } });
      assert.equal((await server.app.inject({ method: 'GET', url: '/health', headers: bearer(firstToken) })).statusCode, 200);

      const json = await opencity(db.url, ['token', 'cli-tool', '-', '--json'], `${secret}\n`);
      assert.equal(json.code, 0, json.stderr);
      const body = JSON.parse(json.stdout);
      assert.equal(body.token_type, 'Bearer');
      assert.equal(body.expires_in, 300);
      assert.equal(typeof body.access_token, 'string');
    });

    it('token refuses wrong credentials with exit code 1', async () => {
      // After `--`, a secret that starts with a dash is a secret, not an option.
      for (const args of [['token', 'cli-tool', 'wrong-secret'], ['token', 'no-such-client', secret], ['token', 'cli-tool', '--', '-wrong-secret']]) {
        const run = await opencity(db.url, args);
        assert.equal(run.code, 1);
        assert.equal(run.stdout, '');
        assert.match(run.stderr, /invalid client credentials/);
      }
      const usage = await opencity(db.url, ['token', 'cli-tool']);
      assert.equal(usage.code, 2);
    });

    it('keys rotate makes a new signing key; earlier tokens keep verifying', async () => {
      const earlier = await opencity(db.url, ['token', 'cli-tool', secret]);
      assert.equal(earlier.code, 0, earlier.stderr);
      const firstToken = earlier.stdout.trim();
      const oldKid = decodeHeader(firstToken).kid;
      const run = await opencity(db.url, ['keys', 'rotate', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const { kid } = JSON.parse(run.stdout);
      assert.notEqual(kid, oldKid);

      const list = await opencity(db.url, ['keys', 'list', '--json']);
      assert.equal(list.code, 0, list.stderr);
      const keys = JSON.parse(list.stdout) as Array<{ kid: string; current: boolean; retiredAt: string | null }>;
      assert.deepEqual(keys.map((k) => [k.kid, k.current, k.retiredAt === null]), [[kid, true, true], [oldKid, false, false]]);

      // New tokens carry the new key; the running server verifies both.
      const fresh = (await opencity(db.url, ['token', 'cli-tool', secret])).stdout.trim();
      assert.equal(decodeHeader(fresh).kid, kid);
      for (const token of [firstToken, fresh]) {
        assert.equal((await server.app.inject({ method: 'GET', url: '/health', headers: bearer(token) })).statusCode, 200);
      }
      const jwks = (await server.app.inject({ method: 'GET', url: '/auth/realms/opencity/protocol/openid-connect/certs' })).json();
      assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid).sort(), [kid, oldKid].sort());
    });

    it('site add gives the site client credentials that work at once', async () => {
      const run = await opencity(db.url, ['site', 'add', 'santander', '--name', 'Santander', '--lat', '43.4623', '--lon', '-3.80998', '--json']);
      assert.equal(run.code, 0, run.stderr);
      const creds = JSON.parse(run.stdout);
      assert.equal(creds.client_id, 'ocsite-santander');
      const res = await tokenRequest(server.app, { grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.secret });
      assert.equal(res.statusCode, 200);
      const claims = decodePayload(res.json().access_token);
      assert.equal(claims.clientId, 'ocsite-santander');
      assert.deepEqual(claims.realm_access, { roles: ['ocsite'] });
    });
  });
}
