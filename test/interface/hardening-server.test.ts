import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';

/**
 * The real server process: slow clients are cut off without holding it, and no
 * secret or token ever reaches its logs, even at the most verbose level.
 */

const ADMIN_SECRET = 'admin-secret-that-must-never-be-logged-0123456789';
const TOKEN_PATH = '/auth/realms/opencity/protocol/openid-connect/token';

/** Opens a connection, sends `partial` and never finishes the request; resolves with what the server answered once it closed. */
function slowClient(port: number, partial: string, limitMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server held a slow client for more than ${limitMs} ms`));
    }, limitMs);
    socket.on('connect', () => socket.write(partial));
    socket.on('data', (d) => { answer += d.toString(); });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve(answer);
    });
  });
}

describe('a real server process under slow clients, with secrets kept out of its logs', () => {
  let db: TestDatabase;
  let server: ServerProcess;

  before(async () => {
    db = await createTestDatabase('sqlite');
    server = await startServer({ DATABASE_URL: db.url, OPENCITY_ADMIN_SECRET: ADMIN_SECRET, LOG_LEVEL: 'trace', REQUEST_TIMEOUT: '1s' });
  });

  after(async () => {
    await server?.stop('SIGKILL');
    await db?.drop();
  });

  it('cuts off clients that send their request too slowly, and keeps serving meanwhile', async () => {
    const slow = [
      ...Array.from({ length: 20 }, () => slowClient(server.port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', 20_000)),
      ...Array.from({ length: 20 }, () => slowClient(server.port, `POST ${TOKEN_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=`, 20_000)),
    ];
    // While forty connections hang, the server answers others at once.
    for (let i = 0; i < 20; i++) assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const answers = await Promise.all(slow);
    for (const answer of answers) {
      if (answer !== '') assert.match(answer, /^HTTP\/1\.1 408 /, answer);
    }
    assert.ok(answers.filter((a) => a.startsWith('HTTP/1.1 408')).length >= 20, 'slow clients were told 408');
    assert.equal((await fetch(`${server.url}/ready`)).status, 200);
  });

  it('never writes a secret or a token to its logs', async () => {
    const basic = `Basic ${Buffer.from(`opencity-admin:${ADMIN_SECRET}`).toString('base64')}`;
    const adminGrant = await fetch(`${server.url}${TOKEN_PATH}`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' });
    assert.equal(adminGrant.status, 200);
    const adminToken = ((await adminGrant.json()) as { access_token: string }).access_token;
    const created = await fetch(`${server.url}/permissions/clients`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ clientId: 'log-watcher' }) });
    assert.equal(created.status, 201);
    const { secret } = (await created.json()) as { secret: string };
    const grant = await fetch(`${server.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=log-watcher&client_secret=${secret}` });
    assert.equal(grant.status, 200);
    const token = ((await grant.json()) as { access_token: string }).access_token;
    const wrong = await fetch(`${server.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=log-watcher&client_secret=${secret}x` });
    assert.equal(wrong.status, 401);
    // Errors too: a malformed request carrying the token, a 404 with it, a bad body with the secret in it.
    await fetch(`${server.url}/federation/v2/entities`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: `{"secret":"${secret}"` });
    await fetch(`${server.url}/no/such/route?access_token=${token}`, { headers: { authorization: `Bearer ${token}`, cookie: `session=${secret}` } });
    assert.equal(await server.stop('SIGTERM'), 0);
    const logs = server.output();
    assert.match(logs, /incoming request/, 'requests are logged at this level');
    assert.ok(logs.includes('/no/such/route?access_token=[redacted]'), 'the request URL is logged, its credentials redacted');
    for (const [name, value] of Object.entries({ adminSecret: ADMIN_SECRET, secret, adminToken, token })) {
      const at = logs.indexOf(value);
      assert.equal(at, -1, `the ${name} appears in the logs: …${logs.slice(Math.max(0, at - 300), at).replace(/\s+/g, ' ')}[${name}]…`);
    }
  });
});
