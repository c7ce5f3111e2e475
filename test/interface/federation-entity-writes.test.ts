import assert from 'node:assert/strict';
import { it } from 'node:test';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { assertError, assetBody, assetRow, create, entityUrl, read, readingsOf, timeInstant, writeHeaders } from '../helpers/federation.js';

/**
 * The NGSI v2 writes of one entity's attributes (PATCH, PUT, strict append,
 * one attribute, one value, removal) and upsert, as a site sees them.
 */

const START = Date.parse('2026-02-01T00:00:00.000Z');
const T1 = '2017-07-25T13:40:00.000Z';
const idOf = (name: string) => `urn:oc:entity:santander:environment:writes:${name}`;
const HUMIDITY = { type: 'Number', value: 40, metadata: {} };

async function santander(p: TestPlatform, id: string, extra: Record<string, unknown> = {}): Promise<string> {
  p.clock.set(START);
  const token = await p.siteToken('santander');
  const res = await create(p, token, assetBody(id, { humidity: HUMIDITY, ...extra }));
  assert.equal(res.statusCode, 201, res.body);
  p.clock.advance(60_000);
  return token;
}

function send(p: TestPlatform, token: string, method: 'PATCH' | 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}) {
  const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return p.app.inject({ method, url, headers: body === undefined ? { ...bearer(token), ...headers } : writeHeaders(token, headers), payload });
}

const entity = async (p: TestPlatform, token: string, id: string) => (await read(p, token, id)).json() as Record<string, any>;

describeEachStore('federation: writes of attributes', (platform) => {
  it('PATCH updates existing attributes only; one missing attribute writes nothing (422 naming it)', async () => {
    const p = platform();
    const id = idOf('patch');
    const token = await santander(p, id);
    const ok = await send(p, token, 'PATCH', entityUrl(id, '/attrs'), { TimeInstant: timeInstant(T1), humidity: { type: 'Number', value: 41 } });
    assert.equal(ok.statusCode, 204, ok.body);
    assert.equal((await entity(p, token, id)).humidity.value, 41);

    const missing = await send(p, token, 'PATCH', entityUrl(id, '/attrs?type=urn:oc:entityType:iotdevice'), { TimeInstant: timeInstant(T1), humidity: { type: 'Number', value: 99 }, pressure: { type: 'Number', value: 1 } });
    assertError(missing, 422, 'Unprocessable', `do not exist: ${id}/urn:oc:entityType:iotdevice - [ pressure ]`);
    const after = await entity(p, token, id);
    assert.equal(after.humidity.value, 41);
    assert.equal(after.pressure, undefined);
    assert.equal((await readingsOf(p, id)).filter((r) => r.attr_value === '99').length, 0);

    assertError(await send(p, token, 'PATCH', entityUrl(idOf('nobody'), '/attrs'), { TimeInstant: timeInstant() }), 404, 'NotFound', 'The requested entity has not been found. Check type and id');
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs'), { humidity: HUMIDITY }), 400, 'BadRequest', 'Asset attribute TimeInstant in payload not found!');
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs'), { id, TimeInstant: timeInstant() }), 400, 'BadRequest', 'Asset attribute id in payload not allowed!');
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs?options=upsert'), { TimeInstant: timeInstant() }), 400, 'BadRequest', 'Query parameter options=upsert is not supported here');
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs'), '{"TimeInstant":'), 400, 'BadRequest', 'HTTP body is not valid JSON!');
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs'), { TimeInstant: timeInstant() }, { 'content-type': 'text/plain' }), 415, 'UnsupportedMediaType');
    assertError(await p.app.inject({ method: 'PATCH', url: entityUrl(id, '/attrs'), headers: { ...bearer(token), 'content-type': 'application/json' }, payload: '{}' }), 400, 'BadRequest', /platform-service not provided/);
    assertError(await send(p, token, 'PATCH', entityUrl('urn:oc:entity:london:environment:writes:x', '/attrs'), { TimeInstant: timeInstant() }), 400, 'BadRequest', /^Asset\.id prefix wrong/);
  });

  it('PATCH with keyValues takes bare values, TimeInstant as its text', async () => {
    const p = platform();
    const id = idOf('patch-kv');
    const token = await santander(p, id);
    const res = await send(p, token, 'PATCH', entityUrl(id, '/attrs?options=keyValues'), { TimeInstant: T1, humidity: 43 });
    assert.equal(res.statusCode, 204, res.body);
    const after = await entity(p, token, id);
    assert.deepEqual(after.humidity, { type: 'Number', value: 43, metadata: {} });
    assert.equal(after.TimeInstant.value, T1);
    assertError(await send(p, token, 'PATCH', entityUrl(id, '/attrs?options=keyValues'), { TimeInstant: '2017-07-25T13:40:00Z', humidity: 43 }), 400, 'BadRequest', /TimeInstant\.value is not in the required format/);
  });

  it('PUT …/attrs replaces every attribute: the others go, each new value is a reading, the position returns to the site', async () => {
    const p = platform();
    const id = idOf('replace');
    const token = await santander(p, id, { location: { type: 'geo:point', value: '43.47, -3.80' } });
    assert.equal((await assetRow(p, id))?.latitude, 43.47);
    const res = await send(p, token, 'PUT', entityUrl(id, '/attrs'), { TimeInstant: timeInstant(T1), pressure: { type: 'Number', value: 1013 } });
    assert.equal(res.statusCode, 204, res.body);
    const after = await entity(p, token, id);
    assert.deepEqual(Object.keys(after).sort(), ['TimeInstant', 'id', 'pressure', 'type']);
    const row = await assetRow(p, id);
    assert.deepEqual([row?.latitude, row?.longitude], [43.4623, -3.80998]);
    const last = (await readingsOf(p, id)).filter((r) => r.recv_time === START + 60_000).map((r) => r.attr_name);
    assert.deepEqual(last, ['TimeInstant', 'pressure']);
    assertError(await send(p, token, 'PUT', entityUrl(idOf('nobody'), '/attrs'), { TimeInstant: timeInstant() }), 404, 'NotFound');
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs'), { TimeInstant: timeInstant(), bad: 3 }), 400, 'BadRequest', 'Asset attribute bad must be an object with type and value');
  });

  it('POST …/attrs?options=append appends new attributes only: 422 naming those that exist (TimeInstant aside)', async () => {
    const p = platform();
    const id = idOf('strict');
    const token = await santander(p, id);
    const ok = await send(p, token, 'POST', entityUrl(id, '/attrs?options=append'), { TimeInstant: timeInstant(T1), pressure: { type: 'Number', value: 1 } });
    assert.equal(ok.statusCode, 204, ok.body);
    const refused = await send(p, token, 'POST', entityUrl(id, '/attrs?options=append'), { TimeInstant: timeInstant(T1), pressure: { type: 'Number', value: 2 }, humidity: HUMIDITY, wind: { type: 'Number', value: 3 } });
    assertError(refused, 422, 'Unprocessable', `one or more of the attributes in the request already exist: ${id} - [ pressure, humidity ]`);
    const after = await entity(p, token, id);
    assert.equal(after.pressure.value, 1);
    assert.equal(after.wind, undefined);
    assertError(await send(p, token, 'POST', entityUrl(idOf('nobody'), '/attrs?options=append'), { TimeInstant: timeInstant() }), 404, 'NotFound');
    const kv = await send(p, token, 'POST', entityUrl(id, '/attrs?options=keyValues'), { TimeInstant: T1, note: 'fine' });
    assert.equal(kv.statusCode, 204, kv.body);
    assert.deepEqual((await entity(p, token, id)).note, { type: 'Text', value: 'fine', metadata: {} });
  });

  it('PUT …/attrs/{attr} replaces one attribute (its type kept when left out), observed at its TimeInstant metadata or at receipt', async () => {
    const p = platform();
    const id = idOf('one');
    const token = await santander(p, id);
    const stamped = await send(p, token, 'PUT', entityUrl(id, '/attrs/humidity'), { value: 50, metadata: { TimeInstant: { type: 'DateTime', value: T1 } } });
    assert.equal(stamped.statusCode, 204, stamped.body);
    let after = await entity(p, token, id);
    assert.deepEqual(after.humidity, { type: 'Number', value: 50, metadata: { TimeInstant: { type: 'DateTime', value: T1 } } });
    assert.equal(after.TimeInstant.value, T1);

    p.clock.advance(1000);
    const typed = await send(p, token, 'PUT', entityUrl(id, '/attrs/humidity'), { type: 'urn:oc:attributeType:relativeHumidity', value: '51' });
    assert.equal(typed.statusCode, 204, typed.body);
    after = await entity(p, token, id);
    assert.deepEqual(after.humidity, { type: 'urn:oc:attributeType:relativeHumidity', value: '51', metadata: {} });
    assert.equal(after.TimeInstant.value, new Date(START + 61_000).toISOString());
    const readings = (await readingsOf(p, id)).filter((r) => r.recv_time === START + 61_000);
    assert.deepEqual(readings.map((r) => [r.attr_name, r.attr_value]), [['humidity', '51'], ['TimeInstant', new Date(START + 61_000).toISOString()]]);

    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/pressure'), { value: 1 }), 404, 'NotFound', 'The entity does not have such an attribute');
    assertError(await send(p, token, 'PUT', entityUrl(idOf('nobody'), '/attrs/humidity'), { value: 1 }), 404, 'NotFound', 'The requested entity has not been found. Check type and id');
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/humidity'), [1]), 400, 'BadRequest', /must be a JSON object/);
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/humidity'), { type: 'Number' }), 400, 'BadRequest', 'Asset attribute humidity.value not provided!');
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/humidity'), { value: 1, metadata: { TimeInstant: { value: 'yesterday' } } }), 400, 'BadRequest', /TimeInstant\.value is not in the required format/);
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/TimeInstant'), { type: 'Text', value: T1 }), 400, 'BadRequest', 'Asset attribute TimeInstant.type must be urn:oc:attributeType:ISO8601');
  });

  it('PUT …/attrs/{attr}/value sets a value (JSON, or text/plain), keeping type and metadata', async () => {
    const p = platform();
    const id = idOf('value');
    const token = await santander(p, id, { status: { type: 'urn:oc:attributeType:status', value: 'ok', metadata: { by: { type: 'Text', value: 'x' } } } });
    const json = await send(p, token, 'PUT', entityUrl(id, '/attrs/status/value'), { state: 'degraded' });
    assert.equal(json.statusCode, 204, json.body);
    let after = await entity(p, token, id);
    assert.deepEqual(after.status, { type: 'urn:oc:attributeType:status', value: { state: 'degraded' }, metadata: { by: { type: 'Text', value: 'x' } } });
    for (const [text, value] of [['"fine"', 'fine'], ['12.5', 12.5], ['true', true], ['null', null]] as const) {
      const res = await send(p, token, 'PUT', entityUrl(id, '/attrs/status/value'), text, { 'content-type': 'text/plain' });
      assert.equal(res.statusCode, 204, res.body);
      after = await entity(p, token, id);
      assert.deepEqual(after.status.value, value);
    }
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/status/value'), 'fine', { 'content-type': 'text/plain' }), 400, 'BadRequest', /text\/plain value must be/);
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/status/value'), '1', { 'content-type': 'application/xml' }), 415, 'UnsupportedMediaType');
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/missing/value'), '1'), 404, 'NotFound', 'The entity does not have such an attribute');
    // The value writes above were observed at receipt; a later TimeInstant moves the asset on.
    const later = new Date(START + 120_000).toISOString();
    const ti = await send(p, token, 'PUT', entityUrl(id, '/attrs/TimeInstant/value'), JSON.stringify(later));
    assert.equal(ti.statusCode, 204, ti.body);
    assert.equal((await entity(p, token, id)).TimeInstant.value, later);
    assertError(await send(p, token, 'PUT', entityUrl(id, '/attrs/TimeInstant/value'), '"soon"'), 400, 'BadRequest', /TimeInstant\.value is not in the required format/);
  });

  it('DELETE …/attrs/{attr} removes an attribute (history kept); a position attribute returns the asset to its site', async () => {
    const p = platform();
    const id = idOf('remove');
    const token = await santander(p, id, { location: { type: 'geo:point', value: '43.47, -3.80' } });
    const before = (await readingsOf(p, id)).length;
    const res = await send(p, token, 'DELETE', entityUrl(id, '/attrs/humidity'));
    assert.equal(res.statusCode, 204, res.body);
    let after = await entity(p, token, id);
    assert.equal(after.humidity, undefined);
    assert.equal(after.TimeInstant.value, timeInstant().value);
    assert.equal((await readingsOf(p, id)).length, before);
    const row = await assetRow(p, id);
    assert.equal(row?.recorded_at, Date.parse(timeInstant().value));

    assert.equal((await send(p, token, 'DELETE', entityUrl(id, '/attrs/location'))).statusCode, 204);
    const moved = await assetRow(p, id);
    assert.deepEqual([moved?.latitude, moved?.longitude], [43.4623, -3.80998]);
    after = await entity(p, token, id);
    assert.equal(after.location, undefined);

    assertError(await send(p, token, 'DELETE', entityUrl(id, '/attrs/humidity')), 404, 'NotFound', 'The entity does not have such an attribute');
    assertError(await send(p, token, 'DELETE', entityUrl(idOf('nobody'), '/attrs/humidity')), 404, 'NotFound', 'The requested entity has not been found. Check type and id');
    assertError(await send(p, token, 'DELETE', entityUrl(id, '/attrs/TimeInstant')), 400, 'BadRequest', /TimeInstant cannot be removed/);
    assertError(await send(p, token, 'DELETE', entityUrl(id, '/attrs/temperature?type=urn:oc:entityType:other')), 404, 'NotFound');
  });

  it('POST /v2/entities?options=upsert creates or appends, 204 with the Location either way; keyValues creates from bare values', async () => {
    const p = platform();
    p.clock.set(START);
    const token = await p.siteToken('santander');
    const id = idOf('upsert');
    const first = await send(p, token, 'POST', '/federation/v2/entities?options=upsert', assetBody(id));
    assert.equal(first.statusCode, 204, first.body);
    assert.equal(first.headers.location, `/v2/entities/${id}?type=urn:oc:entityType:iotdevice`);
    const again = await send(p, token, 'POST', '/federation/v2/entities?options=upsert', assetBody(id, { TimeInstant: timeInstant(T1), pressure: { type: 'Number', value: 7 } }));
    assert.equal(again.statusCode, 204, again.body);
    const after = await entity(p, token, id);
    assert.equal(after.pressure.value, 7);
    assert.equal(after.temperature.value, 21.5);
    assertError(await send(p, token, 'POST', '/federation/v2/entities?options=upsert', { id, TimeInstant: timeInstant() }), 400, 'BadRequest', 'Asset.type not provided!');
    assertError(await send(p, token, 'POST', '/federation/v2/entities?options=upsert', { ...assetBody(id), type: 'urn:oc:entityType:other' }), 422, 'Unprocessable', /Already Exists/);

    const kvId = idOf('kv');
    const kv = await send(p, token, 'POST', '/federation/v2/entities?options=keyValues', { id: kvId, type: 'urn:oc:entityType:iotdevice', TimeInstant: T1, temperature: 20.5, label: 'north', flags: [1] });
    assert.equal(kv.statusCode, 201, kv.body);
    const made = await entity(p, token, kvId);
    assert.deepEqual(made.TimeInstant, { type: 'urn:oc:attributeType:ISO8601', value: T1, metadata: {} });
    assert.deepEqual([made.temperature.type, made.label.type, made.flags.type], ['Number', 'Text', 'StructuredValue']);
    assertError(await send(p, token, 'POST', '/federation/v2/entities?options=append', assetBody(idOf('x'))), 400, 'BadRequest', 'Query parameter options=append is not supported here');
  });
});
