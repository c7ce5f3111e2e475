import assert from 'node:assert/strict';
import { it } from 'node:test';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';

/**
 * The subscription resource at /federation/v2/subscriptions: Orion's shape,
 * its read-only status fields, paging, who manages and sees what, the quota,
 * the destination policy and the 400s that name the member at fault.
 */

const SUBSCRIPTIONS = '/federation/v2/subscriptions';
const RECEIVER = 'http://127.0.0.1:9/notify';

const minimal = (extra: Record<string, unknown> = {}) => ({
  subject: { entities: [{ idPattern: '.*' }] },
  notification: { http: { url: RECEIVER } },
  ...extra,
});

describeEachStore('subscriptions', (platform) => {
  const json = (token: string) => ({ ...bearer(token), 'content-type': 'application/json' });
  const post = (token: string, body: unknown) => platform().app.inject({ method: 'POST', url: SUBSCRIPTIONS, headers: json(token), payload: JSON.stringify(body) });
  const get = (token: string, path = '') => platform().app.inject({ method: 'GET', url: `${SUBSCRIPTIONS}${path}`, headers: bearer(token) });
  const idOf = (location: unknown) => String(location).split('/').pop() as string;
  const tokenOf = (p: TestPlatform, name: string, roles: string[] = []) => p.clientToken(name, roles);

  it('creates, reads, changes and deletes a subscription as Orion shapes it', async () => {
    const p = platform();
    const token = await tokenOf(p, 'crud-tool');
    const body = {
      description: 'Hot rooms',
      subject: {
        entities: [{ idPattern: '^urn:oc:entity:santander:', type: 'urn:oc:entityType:iotdevice' }],
        condition: { attrs: ['temperature'], expression: { q: 'temperature>40' }, alterationTypes: ['entityUpdate', 'entityCreate'] },
      },
      notification: { http: { url: RECEIVER }, attrs: ['temperature'], attrsFormat: 'keyValues', onlyChangedAttrs: true, maxFailsLimit: 3 },
      expires: '2030-04-05T14:00:00.000Z',
      throttling: 5,
    };
    const created = await post(token, body);
    assert.equal(created.statusCode, 201, created.body);
    assert.match(String(created.headers.location), /^\/v2\/subscriptions\/[0-9a-f]{24}$/);
    const id = idOf(created.headers.location);

    const read = await get(token, `/${id}`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.headers['content-type'], 'application/json');
    assert.deepEqual(read.json(), { id, ...body, status: 'active' });

    const patched = await p.app.inject({ method: 'PATCH', url: `${SUBSCRIPTIONS}/${id}`, headers: json(token), payload: JSON.stringify({ status: 'inactive', throttling: 0, description: 'Cold' }) });
    assert.equal(patched.statusCode, 204, patched.body);
    const after = (await get(token, `/${id}`)).json();
    assert.equal(after.status, 'inactive');
    assert.equal(after.throttling, 0);
    assert.equal(after.description, 'Cold');
    assert.deepEqual(after.subject, body.subject);

    assert.equal((await p.app.inject({ method: 'DELETE', url: `${SUBSCRIPTIONS}/${id}`, headers: bearer(token) })).statusCode, 204);
    const gone = await get(token, `/${id}`);
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().error, 'NotFound');
    assert.equal((await p.app.inject({ method: 'DELETE', url: `${SUBSCRIPTIONS}/${id}`, headers: bearer(token) })).statusCode, 404);
  });

  it('defaults attrsFormat to normalized and the status to active', async () => {
    const p = platform();
    const token = await tokenOf(p, 'defaults-tool');
    const id = idOf((await post(token, minimal())).headers.location);
    const read = (await get(token, `/${id}`)).json();
    assert.equal(read.status, 'active');
    assert.equal(read.notification.attrsFormat, 'normalized');
    assert.equal(read.notification.timesSent, undefined);
  });

  it('pages with limit and offset, and gives the total with options=count', async () => {
    const p = platform();
    const token = await tokenOf(p, 'paging-tool');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      p.clock.advance(1);
      ids.push(idOf((await post(token, minimal({ description: `s${i}` }))).headers.location));
    }
    const page = await get(token, '?limit=2&offset=1&options=count');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['fiware-total-count'], '5');
    assert.deepEqual(page.json().map((s: { id: string }) => s.id), ids.slice(1, 3));
    assert.equal((await get(token)).headers['fiware-total-count'], undefined);
    assert.equal((await get(token)).json().length, 5);
    for (const bad of ['?limit=0', '?limit=1001', '?limit=x', '?offset=-1', '?options=keyValues']) {
      const res = await get(token, bad);
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().error, 'BadRequest');
    }
  });

  it("keeps each owner's subscriptions to itself; an administrator sees all", async () => {
    const p = platform();
    const mine = await tokenOf(p, 'owner-a');
    const theirs = await tokenOf(p, 'owner-b');
    const admin = await tokenOf(p, 'owner-admin', ['administrator']);
    const id = idOf((await post(mine, minimal())).headers.location);
    assert.equal((await get(theirs, `/${id}`)).statusCode, 404);
    assert.equal((await p.app.inject({ method: 'PATCH', url: `${SUBSCRIPTIONS}/${id}`, headers: json(theirs), payload: '{"status":"inactive"}' })).statusCode, 404);
    assert.equal((await p.app.inject({ method: 'DELETE', url: `${SUBSCRIPTIONS}/${id}`, headers: bearer(theirs) })).statusCode, 404);
    assert.ok(!(await get(theirs)).json().some((s: { id: string }) => s.id === id));
    assert.equal((await get(admin, `/${id}`)).statusCode, 200);
    assert.ok((await get(admin, '?limit=1000')).json().some((s: { id: string }) => s.id === id));
    assert.equal((await get(mine, `/${id}`)).json().status, 'active');
  });

  it('needs a token', async () => {
    const res = await platform().app.inject({ method: 'GET', url: SUBSCRIPTIONS });
    assert.equal(res.statusCode, 401);
  });

  it('refuses bad input with a 400 naming the member', async () => {
    const p = platform();
    const token = await tokenOf(p, 'bad-input-tool');
    const past = new Date(p.clock.now() - 1000).toISOString();
    const cases: Array<[unknown, string]> = [
      [{ ...minimal(), colour: 'red' }, 'Invalid subscription: unknown member colour'],
      [minimal({ notification: { http: { url: RECEIVER }, format: 'x' } }), 'Invalid subscription: unknown member notification.format'],
      [{ notification: { http: { url: RECEIVER } } }, 'Invalid subscription: subject: expected required property'],
      [minimal({ subject: { entities: [{ idPattern: '([' }] } }), 'Invalid subscription: subject.entities[0].idPattern is not a valid regular expression'],
      [minimal({ subject: { entities: [{ id: 'a', idPattern: 'a' }] } }), 'Invalid subscription: subject.entities[0] needs exactly one of id and idPattern'],
      [minimal({ notification: { http: { url: RECEIVER }, covered: true } }), 'covered true cannot be used if notification attributes list is empty'],
      [minimal({ notification: { http: { url: 'ftp://example.org/x' } } }), 'Invalid subscription: notification.http.url must be an http or https URL'],
      [minimal({ notification: { http: { url: '/relative' } } }), 'Invalid subscription: notification.http.url is not an absolute URL'],
      [minimal({ subject: { entities: [{ idPattern: '.*' }], condition: { expression: { q: 'temperature>>' } } } }), 'Invalid subscription: subject.condition.expression.q: Invalid query: invalid value ">"'],
      [minimal({ subject: { entities: [{ idPattern: '.*' }], condition: { expression: { georel: 'near;maxDistance:10', geometry: 'point' } } } }), 'Invalid subscription: subject.condition.expression: Invalid geographical query: georel, geometry and coords go together'],
      [minimal({ subject: { entities: [{ idPattern: '.*' }], condition: { alterationTypes: ['entityMoved'] } } }), 'Invalid subscription: subject.condition.alterationTypes[0]: expected union value'],
      [minimal({ expires: past }), 'Invalid subscription: expires is in the past'],
      [minimal({ expires: 'tomorrow' }), 'Invalid subscription: expires is not an ISO 8601 date'],
      [minimal({ throttling: -1 }), 'Invalid subscription: throttling must not be negative'],
      [minimal({ notification: { http: { url: RECEIVER }, httpCustom: { url: RECEIVER } } }), 'Invalid subscription: notification needs exactly one of http and httpCustom'],
      [minimal({ notification: { mqtt: { url: 'mqtt://broker:1883', topic: 't' } } }), 'Invalid subscription: unknown member notification.mqtt'],
    ];
    for (const [body, description] of cases) {
      const res = await post(token, body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)} → ${res.body}`);
      assert.deepEqual(res.json(), { error: 'BadRequest', description }, JSON.stringify(body));
    }
    const notJson = await p.app.inject({ method: 'POST', url: SUBSCRIPTIONS, headers: json(token), payload: '{' });
    assert.equal(notJson.statusCode, 400);
    const patch = await post(token, minimal());
    const bad = await p.app.inject({ method: 'PATCH', url: `${SUBSCRIPTIONS}/${idOf(patch.headers.location)}`, headers: json(token), payload: JSON.stringify({ throttling: -5 }) });
    assert.deepEqual(bad.json(), { error: 'BadRequest', description: 'Invalid subscription: throttling must not be negative' });
    assert.equal((await get(token)).json().length, 1, 'nothing refused was stored');
  });

  it('refuses destinations on internal networks unless NOTIFY_ALLOWED_HOSTS lists them', async () => {
    const p = platform();
    const token = await tokenOf(p, 'policy-tool');
    for (const url of ['http://10.1.2.3/n', 'http://192.168.1.1/n', 'http://169.254.169.254/latest', 'http://[::1]:8080/n', 'http://[fd00::1]/n', 'http://127.0.0.2/n']) {
      const res = await post(token, minimal({ notification: { http: { url } } }));
      assert.equal(res.statusCode, 400, url);
      assert.match(res.json().description, /^Invalid subscription: notification\.http\.url: destination not allowed: .* is an internal address/);
    }
    // Listed in NOTIFY_ALLOWED_HOSTS by this suite.
    assert.equal((await post(token, minimal())).statusCode, 201);
    assert.equal((await post(token, minimal({ notification: { http: { url: 'http://203.0.113.7:1026/n' } } }))).statusCode, 201);
  });

  it('refuses a subscription beyond SUBSCRIPTION_QUOTA with a 403', async () => {
    const p = platform();
    const token = await tokenOf(p, 'quota-tool');
    for (let i = 0; i < 5; i++) assert.equal((await post(token, minimal())).statusCode, 201);
    const refused = await post(token, minimal());
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error, 'Forbidden');
    assert.match(refused.json().description, /at most 5 subscriptions \(SUBSCRIPTION_QUOTA\)/);
    // Another owner has its own quota.
    assert.equal((await post(await tokenOf(p, 'quota-other'), minimal())).statusCode, 201);
  });
}, { notifyAllowedHosts: '127.0.0.1', subscriptionQuota: 5 });
