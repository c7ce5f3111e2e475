import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { assertError, assetBody, assetRow, create, read, readingsOf, timeInstant, writeHeaders } from '../helpers/federation.js';

/**
 * POST /v2/op/update (every action type, partial failures, limits) and
 * POST /v2/op/notify (an Orion broker's notification), as sites send them.
 */

const START = Date.parse('2026-03-01T00:00:00.000Z');
const T1 = '2017-07-25T13:40:00.000Z';
const TYPE = 'urn:oc:entityType:iotdevice';
const idOf = (name: string) => `urn:oc:entity:santander:environment:batch:${name}`;
const NOTIFICATION = fs.readFileSync(new URL('../fixtures/orion-v2-notification-sample.json', import.meta.url), 'utf8');

const UPDATE_URL = '/federation/v2/op/update';
const NOTIFY_URL = '/federation/v2/op/notify';

function batch(p: TestPlatform, token: string, body: unknown, { query = '', headers = {} }: { query?: string; headers?: Record<string, string> } = {}) {
  return p.app.inject({ method: 'POST', url: `${UPDATE_URL}${query}`, headers: writeHeaders(token, headers), payload: typeof body === 'string' ? body : JSON.stringify(body) });
}

const entityOf = (id: string, attrs: Record<string, unknown> = {}) => ({ id, type: TYPE, TimeInstant: timeInstant(T1), ...attrs });

async function site(p: TestPlatform, ...existing: string[]): Promise<string> {
  p.clock.set(START);
  const token = await p.siteToken('santander');
  for (const id of existing) assert.equal((await create(p, token, assetBody(id, { humidity: { type: 'Number', value: 40 } }))).statusCode, 201);
  p.clock.advance(60_000);
  return token;
}

const stored = async (p: TestPlatform, token: string, id: string) => {
  const res = await read(p, token, id);
  return res.statusCode === 200 ? (res.json() as Record<string, any>) : undefined;
};

describeEachStore('federation: batch update and notify', (platform) => {
  it('append creates missing entities and appends to existing ones, in one request', async () => {
    const p = platform();
    const [a, b] = [idOf('append-a'), idOf('append-b')];
    const token = await site(p, a);
    const res = await batch(p, token, { actionType: 'append', entities: [entityOf(a, { pressure: { type: 'Number', value: 1 } }), entityOf(b, { pressure: { type: 'Number', value: 2 } })] });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    const first = await stored(p, token, a);
    assert.deepEqual([first?.humidity.value, first?.pressure.value, first?.TimeInstant.value], [40, 1, T1]);
    assert.equal((await stored(p, token, b))?.pressure.value, 2);
    assert.deepEqual((await readingsOf(p, b)).map((r) => r.attr_name), ['TimeInstant', 'pressure']);
  });

  it('appendStrict, update, replace and delete each act as their single operation; upper-case names too', async () => {
    const p = platform();
    const [a, b, c] = [idOf('ops-a'), idOf('ops-b'), idOf('ops-c')];
    const token = await site(p, a, b, c);
    assert.equal((await batch(p, token, { actionType: 'appendStrict', entities: [entityOf(a, { wind: { type: 'Number', value: 3 } })] })).statusCode, 204);
    assert.equal((await stored(p, token, a))?.wind.value, 3);
    assert.equal((await batch(p, token, { actionType: 'UPDATE', entities: [entityOf(a, { wind: { type: 'Number', value: 4 } }), entityOf(b, { humidity: { type: 'Number', value: 5 } })] })).statusCode, 204);
    assert.equal((await stored(p, token, a))?.wind.value, 4);
    assert.equal((await stored(p, token, b))?.humidity.value, 5);
    assert.equal((await batch(p, token, { actionType: 'replace', entities: [entityOf(b, { pressure: { type: 'Number', value: 6 } })] })).statusCode, 204);
    assert.deepEqual(Object.keys((await stored(p, token, b)) ?? {}).sort(), ['TimeInstant', 'id', 'pressure', 'type']);
    const removed = await batch(p, token, { actionType: 'delete', entities: [{ id: a, type: TYPE, wind: {} }, { id: c }] });
    assert.equal(removed.statusCode, 204, removed.body);
    assert.equal((await stored(p, token, a))?.wind, undefined);
    assert.equal(await stored(p, token, c), undefined);
    assert.equal((await assetRow(p, c))?.deleted_at, START + 60_000);
  });

  it('a partial batch stores every valid entity and names the others: 422 PartialUpdate', async () => {
    const p = platform();
    const [a, b] = [idOf('partial-a'), idOf('partial-b')];
    const token = await site(p, a);
    const london = 'urn:oc:entity:london:environment:batch:x';
    const res = await batch(p, token, { actionType: 'update', entities: [
      entityOf(a, { humidity: { type: 'Number', value: 41 } }),
      entityOf(a, { pressure: { type: 'Number', value: 9 } }),
      entityOf(b),
      { id: london, type: TYPE, TimeInstant: timeInstant() },
      { id: a, TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2017-07-25' } },
    ] });
    assertError(res, 422, 'PartialUpdate',
      `do not exist: ${a}/${TYPE} - [ pressure ], ${b}/${TYPE} [entity itself]; `
      + `not valid: ${london}/${TYPE} (Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:), `
      + `${a} (Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got "2017-07-25" (a date without a time))`);
    const written = await stored(p, token, a);
    assert.equal(written?.humidity.value, 41);
    assert.equal(written?.pressure, undefined);
    assert.equal(await assetRow(p, london), undefined);
  });

  it("another site's entity is refused and not stored, even by append", async () => {
    const p = platform();
    const token = await site(p);
    await p.siteToken('london');
    const london = 'urn:oc:entity:london:environment:batch:y';
    const res = await batch(p, token, { actionType: 'append', entities: [{ id: london, type: TYPE, TimeInstant: timeInstant() }] });
    assertError(res, 422, 'Unprocessable', /^not valid: urn:oc:entity:london:environment:batch:y\/urn:oc:entityType:iotdevice \(Asset\.id prefix wrong/);
    assert.equal(await assetRow(p, london), undefined);
  });

  it('404 when none of the entities exists; 422 Unprocessable when none was written for other reasons', async () => {
    const p = platform();
    const a = idOf('none-a');
    const token = await site(p, a);
    assertError(await batch(p, token, { actionType: 'update', entities: [{ id: idOf('none-x'), TimeInstant: timeInstant() }, entityOf(idOf('none-y'))] }), 404, 'NotFound',
      `do not exist: ${idOf('none-x')} [entity itself], ${idOf('none-y')}/${TYPE} [entity itself]`);
    assertError(await batch(p, token, { actionType: 'appendStrict', entities: [entityOf(a, { humidity: { type: 'Number', value: 1 } })] }), 422, 'Unprocessable',
      `one or more of the attributes in the request already exist: ${a}/${TYPE} - [ humidity ]`);
    assertError(await batch(p, token, { actionType: 'delete', entities: [{ id: a, nothing: {} }] }), 422, 'Unprocessable', `do not exist: ${a} - [ nothing ]`);
  });

  it('keyValues applies to every entity', async () => {
    const p = platform();
    const token = await site(p);
    const id = idOf('kv');
    const res = await batch(p, token, { actionType: 'append', entities: [{ id, type: TYPE, TimeInstant: T1, level: 3 }] }, { query: '?options=keyValues' });
    assert.equal(res.statusCode, 204, res.body);
    assert.deepEqual((await stored(p, token, id))?.level, { type: 'Number', value: 3, metadata: {} });
  });

  it('stores a multi-entity measure exactly as an IoT Agent sends it', async () => {
    const p = platform();
    const token = await site(p);
    const [a, b] = [idOf('iota-1'), idOf('iota-2')];
    // iotagent-node-lib: lower-case fiware headers, attributes before id and type, no metadata.
    const body = `{"actionType":"append","entities":[{"TimeInstant":{"type":"urn:oc:attributeType:ISO8601","value":"${T1}"},"temperature":{"type":"Number","value":"21.3"},"id":"${a}","type":"${TYPE}"},{"id":"${b}","type":"${TYPE}","TimeInstant":{"type":"urn:oc:attributeType:ISO8601","value":"${T1}"},"humidity":{"type":"Percentage","value":"12"}}]}`;
    const res = await p.app.inject({ method: 'POST', url: UPDATE_URL, payload: body, headers: {
      ...bearer(token), 'content-type': 'application/json', 'fiware-service': 'opencity', 'fiware-servicepath': '/', accept: 'application/json',
    } });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal((await stored(p, token, a))?.temperature.value, '21.3');
    assert.equal((await stored(p, token, b))?.humidity.value, '12');
  });

  it('refuses more than 1,000 entities or 1 MiB with 413, storing nothing', async () => {
    const p = platform();
    const token = await site(p);
    const many = Array.from({ length: 1001 }, (_, i) => entityOf(idOf(`many-${i}`)));
    assertError(await batch(p, token, { actionType: 'append', entities: many }), 413, 'PayloadTooLarge', 'entities holds 1001 entities: at most 1000 are accepted per request; send the rest in further requests');
    assert.equal(await assetRow(p, idOf('many-0')), undefined);
    const big = [entityOf(idOf('big'), { blob: { type: 'Text', value: 'x'.repeat(1024 * 1024) } })];
    assertError(await batch(p, token, { actionType: 'append', entities: big }), 413, 'PayloadTooLarge');
    assert.equal(await assetRow(p, idOf('big')), undefined);
    const thousand = await batch(p, token, { actionType: 'append', entities: many.slice(0, 1000) });
    assert.equal(thousand.statusCode, 204, thousand.body);
    assert.ok(await assetRow(p, idOf('many-999')));
  });

  it('answers bad batches with 400 naming the field, 415 and 401', async () => {
    const p = platform();
    const token = await site(p);
    const cases: Array<[unknown, string]> = [
      [[], 'HTTP body must be a JSON object with actionType and entities'],
      [{ entities: [] }, 'actionType not provided'],
      [{ actionType: 'upsert', entities: [] }, 'actionType "upsert" not valid: expected one of append, appendStrict, update, delete, replace'],
      [{ actionType: 'append' }, 'entities not provided'],
      [{ actionType: 'append', entities: {} }, 'entities must be an array of entities'],
      [{ actionType: 'append', entities: [] }, 'entities must not be empty'],
      [{ actionType: 'append', entities: [3] }, 'entities[0] must be an object'],
      [{ actionType: 'append', entities: [{ type: TYPE }] }, 'entities[0].id must be a non-empty string'],
      [{ actionType: 'append', entities: [{ id: idOf('t'), type: 7 }] }, 'entities[0].type must be a non-empty string'],
      [{ actionType: 'append', entities: [entityOf(idOf('t'))], extra: 1 }, 'Field "extra" not allowed in a batch update: only actionType and entities'],
      ['{"actionType":', 'HTTP body is not valid JSON!'],
    ];
    for (const [body, description] of cases) assertError(await batch(p, token, body), 400, 'BadRequest', description);
    assertError(await batch(p, token, { actionType: 'append', entities: [entityOf(idOf('t'))] }, { query: '?options=flowControl' }), 400, 'BadRequest', 'Query parameter options=flowControl is not supported here');
    assertError(await batch(p, token, '{}', { headers: { 'content-type': 'text/plain' } }), 415, 'UnsupportedMediaType');
    assertError(await p.app.inject({ method: 'POST', url: UPDATE_URL, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: '{}' }), 400, 'BadRequest', /platform-service not provided/);
    assertError(await p.app.inject({ method: 'POST', url: UPDATE_URL, headers: { 'content-type': 'application/json' }, payload: '{}' }), 401, 'Unauthorized');
  });

  it("accepts a real Orion notification unchanged, with the broker's own headers: each entity upserted", async () => {
    const p = platform();
    p.clock.set(START);
    const token = await p.siteToken('aarhus', { latitude: 56.1572, longitude: 10.2107 });
    const headers = { ...bearer(token), 'content-type': 'application/json', 'fiware-service': 'organicity', 'fiware-servicepath': '/', 'user-agent': 'orion/3.10.1', 'fiware-correlator': '0a1b; cbnotif=1', 'ngsiv2-attrsformat': 'normalized' };
    const payload = JSON.stringify((JSON.parse(NOTIFICATION) as { body: unknown }).body);
    const first = await p.app.inject({ method: 'POST', url: NOTIFY_URL, headers, payload });
    assert.equal(first.statusCode, 200, first.body);
    const again = await p.app.inject({ method: 'POST', url: NOTIFY_URL, headers, payload });
    assert.equal(again.statusCode, 200, again.body);
    const traffic = await stored(p, token, 'urn:oc:entity:aarhus:traffic:fixed:BT338');
    assert.equal(traffic?.['speed:average'].value, '69');
    const camera = await stored(p, token, 'urn:oc:entity:aarhus:visitors:dokk1:fixed:camera1');
    assert.equal(camera?.['visitors:in'].value, 1210);
    assert.equal((await readingsOf(p, 'urn:oc:entity:aarhus:traffic:fixed:BT338')).filter((r) => r.attr_name === 'speed:average').length, 2);
  });

  it('answers bad notifications with 400 naming the field, and names entities that failed', async () => {
    const p = platform();
    const token = await site(p);
    const notify = (body: unknown) => p.app.inject({ method: 'POST', url: NOTIFY_URL, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
    assertError(await notify({ data: [] }), 400, 'BadRequest', 'subscriptionId must be a non-empty string');
    assertError(await notify({ subscriptionId: 's' }), 400, 'BadRequest', 'data not provided');
    assertError(await notify({ subscriptionId: 's', data: 'x' }), 400, 'BadRequest', 'data must be an array of entities');
    assertError(await notify({ subscriptionId: 's', data: [entityOf(idOf('n1')), { id: idOf('n2'), TimeInstant: timeInstant() }] }), 422, 'PartialUpdate', `not valid: ${idOf('n2')} (Asset.type not provided!)`);
    assert.ok(await stored(p, token, idOf('n1')));
    assertError(await p.app.inject({ method: 'POST', url: `${NOTIFY_URL}?options=keyValues`, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: '{}' }), 400, 'BadRequest', 'Query parameter options=keyValues is not supported here');
  });
});
