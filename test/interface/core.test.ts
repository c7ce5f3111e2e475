import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';

describeEachStore('platform core', (platform) => {
  it('answers /health with 200 JSON', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('answers /ready with 200 while the store is reachable', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/ready' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready' });
  });

  it('gives an unknown route a 404 JSON error', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/no/such/route' });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json().error, 'NotFound');
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await platform().app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ x: 'a'.repeat(1024 * 1024 + 10) }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error !== undefined, true);
  });

  it('serves Prometheus metrics with request counters', async () => {
    await platform().app.inject({ method: 'GET', url: '/health' });
    const res = await platform().app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /opencity_http_requests_total\{route="\/health",method="GET",status="200"\} \d+/);
    assert.match(res.body, /opencity_http_request_duration_seconds_bucket/);
    assert.match(res.body, /opencity_store_pool_connections/);
  });

  it('serves the OpenAPI 3.1 document and its browser at /docs', async () => {
    const json = await platform().app.inject({ method: 'GET', url: '/docs/json' });
    assert.equal(json.statusCode, 200);
    assert.equal(json.json().openapi, '3.1.0');
    const ui = await platform().app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(ui.statusCode, 200);
    assert.match(ui.headers['content-type'] as string, /text\/html/);
  });

  it('answers CORS preflight requests for browser clients', async () => {
    const res = await platform().app.inject({
      method: 'OPTIONS', url: '/discovery/v0/assets', headers: { origin: 'http://example.org', 'access-control-request-method': 'GET' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'http://example.org');
  });

  it('tags every response with a request id', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    assert.equal(res.headers['x-request-id'], 'abc-123');
  });
});

describeEachStore('error rendering', (platform) => {
  it('answers invalid JSON with a 400 JSON error', async () => {
    const res = await platform().app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/json' }, payload: '{"grant_type": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.ok(typeof res.json().error === 'string');
  });

  it('refuses a JSON body whose bytes are not UTF-8, and creates nothing from it', async () => {
    const p = platform();
    const admin = await p.clientToken('utf8-admin', ['accounts-permissions:createClient']);
    const broken = Buffer.concat([Buffer.from('{"id":"'), Buffer.from([0x7d, 0x44, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const before = (await p.ctx.store.read.selectFrom('clients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const res = await p.app.inject({
      method: 'POST', url: '/permissions/clients', payload: broken,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    });
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json().error, 'The request body is not valid UTF-8');
    const after = (await p.ctx.store.read.selectFrom('clients').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    assert.equal(Number(after), Number(before));
  });

  it('answers an unsupported media type with 415', async () => {
    const res = await platform().app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/x-unknown' }, payload: 'x',
    });
    assert.equal(res.statusCode, 415);
  });
});
