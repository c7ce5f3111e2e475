import assert from 'node:assert/strict';
import { it } from 'node:test';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { adminToken, call, clientCredentials, errorOf, toolToken } from '../helpers/permissions.js';

const createClient = (p: TestPlatform, token: string, body: unknown) => call(p, { method: 'POST', url: '/clients', token, body });
const readUris = (p: TestPlatform, token: string, clientId: string) => call(p, { method: 'GET', url: `/clients/${clientId}/redirecturis`, token });
const writeUris = (p: TestPlatform, token: string, clientId: string, body: unknown) =>
  call(p, { method: 'PUT', url: `/clients/${clientId}/redirecturis`, token, body });

describeEachStore('permissions: clients', (platform) => {
  it('creates a client with a service account: 201 {client_id, secret, service_account_id}, usable at once', async () => {
    const p = platform();
    const res = await createClient(p, await adminToken(p), { clientName: 'Noise map', clientUri: 'https://noise.example.org', redirectUri: 'https://noise.example.org/cb' });
    assert.equal(res.statusCode, 201);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const creds = res.json();
    assert.deepEqual(Object.keys(creds).sort(), ['client_id', 'secret', 'service_account_id']);
    assert.match(creds.client_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.ok(creds.secret.length >= 32);
    const { claims } = await clientCredentials(p, creds.client_id, creds.secret);
    assert.equal(claims.sub, creds.service_account_id);
    assert.equal(claims.clientId, creds.client_id);
    const uris = await readUris(p, await adminToken(p), creds.client_id);
    assert.equal(uris.statusCode, 200);
    assert.deepEqual(uris.json(), { redirectUris: ['https://noise.example.org/cb'] });
  });

  it('creates a client under a chosen id (extension) and refuses a taken one with 409 {error}', async () => {
    const p = platform();
    const token = await adminToken(p);
    // A site's client id is taken through this interface only for a registered site.
    await upsertSite(p.ctx.store, {
      id: 'testville', name: 'Testville', type: 'city', latitude: 40.4168, longitude: -3.7038, countryCode: 'ES', country: 'Spain', city: 'Testville', quota: null,
    }, p.clock.now());
    const res = await createClient(p, token, { clientId: 'ocsite-testville', clientName: 'Testville' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().client_id, 'ocsite-testville');
    for (const clientId of ['ocsite-testville', 'OCSITE-TESTVILLE']) {
      const again = await createClient(p, token, { clientId });
      assert.equal(again.statusCode, 409, clientId);
      assert.match(errorOf(again), /exists already/);
    }
  });

  it('creates a client concurrently under one id only once', async () => {
    const p = platform();
    const token = await adminToken(p);
    const results = await Promise.all(Array.from({ length: 4 }, () => createClient(p, token, { clientId: 'racer' })));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
  });

  it('accepts the original callers\' empty strings as "none"', async () => {
    const p = platform();
    const token = await adminToken(p);
    const res = await createClient(p, token, { clientName: 'Experiment 42', clientUri: '', redirectUri: '' });
    assert.equal(res.statusCode, 201);
    assert.deepEqual((await readUris(p, token, res.json().client_id)).json(), { redirectUris: [] });
    const bare = await createClient(p, token, {});
    assert.equal(bare.statusCode, 201);
  });

  it('refuses bad client bodies: 400 for the wrong shape, 415 for another type, 422 for bad values', async () => {
    const p = platform();
    const token = await adminToken(p);
    for (const body of [{ clientName: 5 }, { redirectUri: ['https://a.example'] }, [], 'null']) {
      const res = await createClient(p, token, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      errorOf(res);
    }
    const notJson = await createClient(p, token, '{"clientName":');
    assert.equal(notJson.statusCode, 400);
    errorOf(notJson);
    const text = await call(p, { method: 'POST', url: '/clients', token, body: 'clientName=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(text.statusCode, 415);
    errorOf(text);
    for (const body of [
      { redirectUri: '/callback' }, { redirectUri: 'https://a.example/cb#frag' }, { redirectUri: 'http://' }, { redirectUri: 'not a uri' },
      { clientUri: 'noise.example.org' }, { clientId: 'has space' }, { clientId: 'x'.repeat(129) }, { clientId: 'opencity-mine' },
      { clientName: 'x'.repeat(201) }, { clientName: 'bad\u0000name' },
    ]) {
      const res = await createClient(p, token, body);
      assert.equal(res.statusCode, 422, JSON.stringify(body));
      errorOf(res);
    }
  });

  it('demands createClient; refuses a call without a token (401) and a user\'s token (403)', async () => {
    const p = platform();
    const without = await toolToken(p, 'not-a-creator', ['readClientRedirectUris', 'editClientRedirectUris']);
    const res = await createClient(p, without, { clientName: 'x' });
    assert.equal(res.statusCode, 403);
    assert.match(errorOf(res), /accounts-permissions:createClient/);
    const anonymous = await createClient(p, '', { clientName: 'x' });
    assert.equal(anonymous.statusCode, 401);
    errorOf(anonymous);
    const { token } = await p.userToken('someone', ['accounts-permissions:createClient']);
    assert.equal((await createClient(p, token, { clientName: 'x' })).statusCode, 403);
    // The gate comes before the body is even read.
    assert.equal((await createClient(p, without, '{"broken')).statusCode, 403);
  });

  it('replaces redirect URIs fully and atomically; GET returns them in order', async () => {
    const p = platform();
    const token = await adminToken(p);
    const { client_id: id } = (await createClient(p, token, { redirectUri: 'https://old.example/cb' })).json();
    const put = await writeUris(p, token, id, { redirectUris: ['https://b.example/cb', 'https://a.example/cb', 'https://b.example/cb', 'com.example.app:/oauth'] });
    assert.equal(put.statusCode, 200);
    assert.equal(put.body, '');
    assert.deepEqual((await readUris(p, token, id)).json(), { redirectUris: ['https://b.example/cb', 'https://a.example/cb', 'com.example.app:/oauth'] });

    // One bad URI: nothing changes.
    const bad = await writeUris(p, token, id, { redirectUris: ['https://c.example/cb', 'relative/path'] });
    assert.equal(bad.statusCode, 422);
    assert.match(errorOf(bad), /relative\/path/);
    assert.deepEqual((await readUris(p, token, id)).json(), { redirectUris: ['https://b.example/cb', 'https://a.example/cb', 'com.example.app:/oauth'] });

    const tooMany = await writeUris(p, token, id, { redirectUris: Array.from({ length: 101 }, (_, i) => `https://x.example/${i}`) });
    assert.equal(tooMany.statusCode, 422);
    errorOf(tooMany);

    assert.equal((await writeUris(p, token, id, { redirectUris: [] })).statusCode, 200);
    assert.deepEqual((await readUris(p, token, id)).json(), { redirectUris: [] });
  });

  it('keeps concurrent replacements whole: the result is one of the sets, never a mix', async () => {
    const p = platform();
    const token = await adminToken(p);
    const { client_id: id } = (await createClient(p, token, {})).json();
    const sets = Array.from({ length: 6 }, (_, k) => Array.from({ length: 5 }, (_, i) => `https://set${k}.example/${i}`));
    const results = await Promise.all(sets.map((redirectUris) => writeUris(p, token, id, { redirectUris })));
    assert.ok(results.every((r) => r.statusCode === 200));
    const final = (await readUris(p, token, id)).json().redirectUris as string[];
    assert.ok(sets.some((s) => JSON.stringify(s) === JSON.stringify(final)), JSON.stringify(final));
  });

  it('answers unknown clients with 404 {error} and bad bodies with 400 {error}', async () => {
    const p = platform();
    const token = await adminToken(p);
    const read = await readUris(p, token, 'no-such-client');
    assert.equal(read.statusCode, 404);
    assert.match(errorOf(read), /no-such-client/);
    const write = await writeUris(p, token, 'no-such-client', { redirectUris: ['https://a.example/cb'] });
    assert.equal(write.statusCode, 404);
    errorOf(write);
    const { client_id: id } = (await createClient(p, token, {})).json();
    for (const body of [{}, { redirectUris: 'https://a.example/cb' }, { redirectUris: [5] }, []]) {
      const res = await writeUris(p, token, id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      errorOf(res);
    }
  });

  it('does not change the platform\'s own clients (403), though their URIs can be read', async () => {
    const p = platform();
    const token = await adminToken(p);
    const res = await writeUris(p, token, 'opencity-observatory', { redirectUris: ['https://evil.example/cb'] });
    assert.equal(res.statusCode, 403);
    errorOf(res);
    const read = await readUris(p, token, 'opencity-observatory');
    assert.equal(read.statusCode, 200);
    assert.ok(!(read.json().redirectUris as string[]).includes('https://evil.example/cb'));
  });

  it('demands readClientRedirectUris and editClientRedirectUris (403 {error}); 401 without a token', async () => {
    const p = platform();
    const admin = await adminToken(p);
    const { client_id: id } = (await createClient(p, admin, {})).json();
    const reader = await toolToken(p, 'uri-reader', ['readClientRedirectUris']);
    const writer = await toolToken(p, 'uri-writer', ['editClientRedirectUris']);
    assert.equal((await readUris(p, reader, id)).statusCode, 200);
    assert.equal((await writeUris(p, reader, id, { redirectUris: [] })).statusCode, 403);
    assert.equal((await writeUris(p, writer, id, { redirectUris: [] })).statusCode, 200);
    const denied = await readUris(p, writer, id);
    assert.equal(denied.statusCode, 403);
    assert.match(errorOf(denied), /readClientRedirectUris/);
    assert.equal((await readUris(p, '', id)).statusCode, 401);
    assert.equal((await writeUris(p, '', id, { redirectUris: [] })).statusCode, 401);
    const { token } = await p.userToken('uri-person', ['accounts-permissions:readClientRedirectUris']);
    assert.equal((await readUris(p, token, id)).statusCode, 403);
  });

  it('documents every operation in the OpenAPI document under the permissions tag', async () => {
    const p = platform();
    const doc = (await p.app.inject({ method: 'GET', url: '/docs/json' })).json();
    const ops: Array<[string, string]> = [
      ['/permissions/clients', 'post'], ['/permissions/clients/{clientId}/redirecturis', 'get'], ['/permissions/clients/{clientId}/redirecturis', 'put'],
      ['/permissions/users', 'get'], ['/permissions/users/{userId}/roles', 'get'], ['/permissions/users/{userId}/roles', 'post'],
      ['/permissions/users/{userId}/roles/{roleName}', 'get'], ['/permissions/users/{userId}/roles/{roleName}', 'delete'],
    ];
    for (const [path, method] of ops) {
      const op = doc.paths?.[path]?.[method];
      assert.ok(op, `${method} ${path}`);
      assert.deepEqual(op.tags, ['permissions']);
      assert.ok(op.responses['403'], `${method} ${path} documents 403`);
    }
  });
});
