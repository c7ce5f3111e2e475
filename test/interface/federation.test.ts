import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { activityOf, assetBody, assetRow, countsOf, create, read, readingsOf, remove, timeInstant, update } from '../helpers/federation.js';

const HOUR = 3_600_000;

/** The platform's clock when it starts: the lifecycle's times below count from it. */
const START = Date.parse('2026-01-01T00:00:00.000Z');
const AMBIENT = { 'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: '13.74', metadata: { unit: { type: 'urn:oc:dataType:string', value: 'urn:oc:uom:degreeCelsius' } } } };
const UPDATE = { TimeInstant: timeInstant('2017-07-25T13:40:00.000Z'), temperature: { type: 'Number', value: 22 }, humidity: { type: 'Number', value: 40, metadata: { unit: { type: 'Text', value: '%' } } } };

// Each step of an asset's life is set up by the test that reads it, on an id of its own,
// so that any test passes alone (--test-name-pattern) and in any order.

/** `id` as Santander first pushes it, at START; gives the site's token. */
async function created(p: TestPlatform, id: string): Promise<string> {
  p.clock.set(START);
  const token = await p.siteToken('santander');
  const res = await create(p, token, assetBody(id, AMBIENT));
  assert.equal(res.statusCode, 201, res.body);
  return token;
}

/** `id` created, then updated a minute later (a changed attribute, a new one). */
async function updated(p: TestPlatform, id: string): Promise<string> {
  const token = await created(p, id);
  p.clock.advance(60_000);
  const res = await update(p, token, id, UPDATE);
  assert.equal(res.statusCode, 204, res.body);
  return token;
}

/** `id` created, updated, then deleted. */
async function deleted(p: TestPlatform, id: string): Promise<string> {
  const token = await updated(p, id);
  assert.equal((await remove(p, token, id)).statusCode, 204);
  return token;
}

describeEachStore('federation: asset lifecycle', (platform) => {
  const ID = 'urn:oc:entity:santander:environment:fixed:1';
  const idOf = (step: string) => `urn:oc:entity:santander:environment:lifecycle:${step}`;

  it('creates an asset: 201, Location /v2/entities/<id>?type=<type>, empty body', async () => {
    const p = platform();
    const id = idOf('create');
    const token = await p.siteToken('santander');
    const res = await create(p, token, assetBody(id, AMBIENT));
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, `/v2/entities/${id}?type=urn:oc:entityType:iotdevice`);
    assert.equal(res.body, '');
  });

  it("returns the site's own asset in NGSI v2 normalized form", async () => {
    const p = platform();
    const id = idOf('read');
    await created(p, id);
    const res = await read(p, await p.siteToken('santander'), id);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json(), {
      id,
      type: 'urn:oc:entityType:iotdevice',
      TimeInstant: { ...timeInstant(), metadata: {} },
      temperature: { type: 'Number', value: 21.5, metadata: {} },
      'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: '13.74', metadata: { unit: { type: 'urn:oc:dataType:string', value: 'urn:oc:uom:degreeCelsius' } } },
    });
    const values = await read(p, await p.siteToken('santander'), id, '?options=keyValues');
    assert.deepEqual(values.json(), { id, type: 'urn:oc:entityType:iotdevice', TimeInstant: timeInstant().value, temperature: 21.5, 'temperature:ambient': '13.74' });
  });

  it('refuses a second create of the same id with 422 Already Exists', async () => {
    const p = platform();
    const id = idOf('twice');
    await created(p, id);
    const res = await create(p, await p.siteToken('santander'), assetBody(id));
    assert.equal(res.statusCode, 422);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json(), { error: 'Unprocessable', description: 'Already Exists' });
  });

  it('updates existing attributes and appends new ones: 204, empty body', async () => {
    const p = platform();
    const id = idOf('update');
    const token = await created(p, id);
    p.clock.advance(60_000);
    const res = await update(p, token, id, UPDATE);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    const entity = (await read(p, token, id)).json();
    assert.deepEqual(entity.temperature, { type: 'Number', value: 22, metadata: {} });
    assert.deepEqual(entity.humidity, { type: 'Number', value: 40, metadata: { unit: { type: 'Text', value: '%' } } });
    assert.equal(entity['temperature:ambient'].value, '13.74');
    assert.equal(entity.TimeInstant.value, '2017-07-25T13:40:00.000Z');
  });

  it('appends one reading per attribute of each create and update, at the receive time', async () => {
    const p = platform();
    const id = idOf('readings');
    await updated(p, id);
    const created = START;
    assert.deepEqual(await readingsOf(p, id), [
      { attr_name: 'TimeInstant', attr_type: 'urn:oc:attributeType:ISO8601', attr_value: '2017-07-25T13:35:00.000Z', recv_time: created },
      { attr_name: 'temperature', attr_type: 'Number', attr_value: '21.5', recv_time: created },
      { attr_name: 'temperature:ambient', attr_type: 'urn:oc:attributeType:temperature:ambient', attr_value: '13.74', recv_time: created },
      { attr_name: 'TimeInstant', attr_type: 'urn:oc:attributeType:ISO8601', attr_value: '2017-07-25T13:40:00.000Z', recv_time: created + 60_000 },
      { attr_name: 'temperature', attr_type: 'Number', attr_value: '22', recv_time: created + 60_000 },
      { attr_name: 'humidity', attr_type: 'Number', attr_value: '40', recv_time: created + 60_000 },
    ]);
  });

  it('keeps the current state discovery reads: URN segments, times, position', async () => {
    const p = platform();
    await updated(p, ID);
    const row = await assetRow(p, ID);
    assert.ok(row);
    assert.equal(row.site, 'santander');
    assert.equal(row.service, 'environment');
    assert.equal(row.provider, 'fixed');
    assert.equal(row.grp, null);
    assert.equal(row.name, '1');
    assert.equal(row.recorded_at, Date.parse('2017-07-25T13:40:00.000Z'));
    assert.equal(row.last_reading_at, Date.parse('2026-01-01T00:01:00.000Z'));
    assert.equal(row.created_at, Date.parse('2026-01-01T00:00:00.000Z'));
    // No position attribute: the site's centre.
    assert.deepEqual([row.latitude, row.longitude], [43.4623, -3.80998]);
    const attributes = await p.ctx.store.read.selectFrom('asset_attributes').select(['name', 'type']).where('asset_seq', '=', row.seq).orderBy('name').execute();
    assert.deepEqual(attributes, [
      { name: 'TimeInstant', type: 'urn:oc:attributeType:ISO8601' }, { name: 'humidity', type: 'Number' },
      { name: 'temperature', type: 'Number' }, { name: 'temperature:ambient', type: 'urn:oc:attributeType:temperature:ambient' },
    ]);
  });

  it('registers a type seen for the first time, with an empty description, and leaves known ones alone', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const type = 'urn:oc:entityType:noiseProbe';
    assert.equal((await create(p, token, assetBody('urn:oc:entity:santander:noise:probe:1', {}, type))).statusCode, 201);
    assert.equal((await create(p, token, assetBody('urn:oc:entity:santander:noise:probe:2', {}, type))).statusCode, 201);
    const types = await p.ctx.store.read.selectFrom('asset_types').selectAll().where('id', 'in', [type]).execute();
    assert.deepEqual(types, [{ id: type, description: '' }]);
    await p.ctx.store.writes.run((trx) => trx.updateTable('asset_types').set({ description: 'Noise probe' }).where('id', '=', type).execute());
    assert.equal((await create(p, token, assetBody('urn:oc:entity:santander:noise:probe:3', {}, type))).statusCode, 201);
    const after = await p.ctx.store.read.selectFrom('asset_types').select('description').where('id', '=', type).executeTakeFirst();
    assert.equal(after?.description, 'Noise probe');
  });

  it('places an asset by its location, and moves it when an update carries a new one', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:traffic:fixed:3306';
    assert.equal((await create(p, token, assetBody(id, { location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.82782, 43.4513] } } }))).statusCode, 201);
    let row = await assetRow(p, id);
    assert.deepEqual([row?.latitude, row?.longitude], [43.4513, -3.82782]);
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant(), location: { type: 'geo:point', value: '43.46, -3.80' } })).statusCode, 204);
    row = await assetRow(p, id);
    assert.deepEqual([row?.latitude, row?.longitude], [43.46, -3.8]);
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1 } })).statusCode, 204);
    row = await assetRow(p, id);
    assert.deepEqual([row?.latitude, row?.longitude], [43.46, -3.8]);
    const position = await update(p, token, 'urn:oc:entity:santander:traffic:fixed:3306', { TimeInstant: timeInstant(), location: { type: 'geo:point', value: 'north' } });
    assert.equal(position.statusCode, 400);
    assert.deepEqual(position.json(), { error: 'BadRequest', description: 'Asset attribute location is not a valid point: expected "latitude, longitude"' });
  });

  it('deletes an asset: 204; then it is not found by any route', async () => {
    const p = platform();
    const id = idOf('delete');
    const token = await updated(p, id);
    const res = await remove(p, token, id);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const notFound = { error: 'NotFound', description: 'The requested entity has not been found. Check type and id' };
    for (const again of [await remove(p, token, id), await read(p, token, id), await update(p, token, id, { TimeInstant: timeInstant() })]) {
      assert.equal(again.statusCode, 404);
      assert.equal(again.headers['content-type'], 'application/json');
      assert.deepEqual(again.json(), notFound);
    }
    // Its history stays.
    assert.equal((await readingsOf(p, id)).length, 6);
    assert.notEqual((await assetRow(p, id))?.deleted_at, null);
  });

  it('revives a deleted id on create: fresh attributes, the same seq, history kept', async () => {
    const p = platform();
    const id = idOf('revive');
    const token = await deleted(p, id);
    const before = await assetRow(p, id);
    const res = await create(p, token, { id: id, type: 'urn:oc:entityType:iotdevice', TimeInstant: timeInstant(), pressure: { type: 'Number', value: 1013 } });
    assert.equal(res.statusCode, 201, res.body);
    const after = await assetRow(p, id);
    assert.equal(after?.seq, before?.seq);
    assert.equal(after?.deleted_at, null);
    assert.deepEqual(Object.keys((await read(p, token, id)).json()), ['id', 'type', 'TimeInstant', 'pressure']);
    assert.equal((await readingsOf(p, id)).length, 8);
  });

  it('answers 404 to an update or delete of an asset that never existed', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:environment:fixed:never';
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant() })).statusCode, 404);
    assert.equal((await remove(p, token, id)).statusCode, 404);
    assert.equal((await read(p, token, id)).statusCode, 404);
  });

  it('with ?type=, finds the asset only under its own type (as Orion)', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:environment:typed:1';
    assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
    assert.equal((await read(p, token, id, '?type=urn:oc:entityType:other')).statusCode, 404);
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant() }, {}, '?type=urn:oc:entityType:other')).statusCode, 404);
    assert.equal((await remove(p, token, id, '?type=urn:oc:entityType:other')).statusCode, 404);
    assert.equal((await read(p, token, id, '?type=urn:oc:entityType:iotdevice')).statusCode, 200);
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant() }, {}, '?type=urn:oc:entityType:iotdevice')).statusCode, 204);
    assert.equal((await remove(p, token, id, '?type=urn:oc:entityType:iotdevice')).statusCode, 204);
  });

  it('keeps the live-asset counters per site, service, provider and type', async () => {
    const p = platform();
    const token = await p.siteToken('aarhus', { latitude: 56.15, longitude: 10.2 });
    const ids = ['urn:oc:entity:aarhus:traffic:fixed:BT1', 'urn:oc:entity:aarhus:traffic:fixed:BT2', 'urn:oc:entity:aarhus:events:1'];
    for (const id of ids) assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
    assert.deepEqual((await countsOf(p, 'aarhus')).map((r) => [r.service, r.provider, r.type, r.assets]), [
      ['events', '', 'urn:oc:entityType:iotdevice', 1],
      ['traffic', 'fixed', 'urn:oc:entityType:iotdevice', 2],
    ]);
    assert.equal((await remove(p, token, ids[2] as string)).statusCode, 204);
    assert.deepEqual((await countsOf(p, 'aarhus')).map((r) => [r.service, r.provider, r.assets]), [['traffic', 'fixed', 2]]);
  });

  it('moves assets between hourly activity buckets as they report', async () => {
    const p = platform();
    p.clock.set(Date.parse('2026-02-01T10:30:00.000Z'));
    const token = await p.siteToken('patras', { latitude: 38.24, longitude: 21.73 });
    const [a, b] = ['urn:oc:entity:patras:env:x:a', 'urn:oc:entity:patras:env:x:b'];
    assert.equal((await create(p, token, assetBody(a))).statusCode, 201);
    assert.equal((await create(p, token, assetBody(b))).statusCode, 201);
    const ten = Date.parse('2026-02-01T10:00:00.000Z');
    assert.deepEqual((await activityOf(p, 'patras')).map((r) => [r.hour, r.assets]), [[ten, 2]]);

    p.clock.advance(4 * 60_000); // same hour: nothing moves
    assert.equal((await update(p, token, a, { TimeInstant: timeInstant() })).statusCode, 204);
    assert.deepEqual((await activityOf(p, 'patras')).map((r) => [r.hour, r.assets]), [[ten, 2]]);

    p.clock.advance(HOUR); // next hour: a moves
    assert.equal((await update(p, await p.siteToken('patras', { latitude: 38.24, longitude: 21.73 }), a, { TimeInstant: timeInstant() })).statusCode, 204);
    assert.deepEqual((await activityOf(p, 'patras')).map((r) => [r.hour, r.assets]), [[ten, 1], [ten + HOUR, 1]]);

    p.clock.advance(3 * HOUR); // b moves too; the emptied bucket goes
    const later = await p.siteToken('patras', { latitude: 38.24, longitude: 21.73 });
    assert.equal((await update(p, later, b, { TimeInstant: timeInstant() })).statusCode, 204);
    assert.deepEqual((await activityOf(p, 'patras')).map((r) => [r.hour, r.assets]), [[ten + HOUR, 1], [ten + 4 * HOUR, 1]]);

    assert.equal((await remove(p, later, a)).statusCode, 204);
    assert.deepEqual((await activityOf(p, 'patras')).map((r) => [r.hour, r.assets]), [[ten + 4 * HOUR, 1]]);
    const row = (await activityOf(p, 'patras'))[0];
    assert.deepEqual([row?.service, row?.provider, row?.type], ['env', 'x', 'urn:oc:entityType:iotdevice']);
  });

  it('moves the assets of updates arriving together, and drops the hour they empty, whatever their provider holds', async () => {
    const p = platform();
    p.clock.set(Date.parse('2026-02-01T10:30:00.000Z'));
    const token = await p.siteToken('zagreb', { latitude: 45.81, longitude: 15.98 });
    // Commas, braces and a backslash: characters that array literals quote.
    const provider = 'o,{k}\\x';
    const ids = [1, 2, 3].map((n) => `urn:oc:entity:zagreb:env:${provider}:${n}`);
    for (const id of ids) assert.equal((await create(p, token, assetBody(id, { humidity: { type: 'Number', value: 40 } }))).statusCode, 201);
    const ten = Date.parse('2026-02-01T10:00:00.000Z');
    assert.deepEqual((await activityOf(p, 'zagreb')).map((r) => [r.provider, r.hour, r.assets]), [[provider, ten, 3]]);

    p.clock.advance(HOUR);
    const later = await p.siteToken('zagreb', { latitude: 45.81, longitude: 15.98 });
    const statuses = await Promise.all(ids.map(async (id) => (await update(p, later, id, { TimeInstant: timeInstant(), noise: { type: 'Number', value: 55 } })).statusCode));
    assert.deepEqual(statuses, [204, 204, 204]);
    assert.deepEqual((await activityOf(p, 'zagreb')).map((r) => [r.provider, r.hour, r.assets]), [[provider, ten + HOUR, 3]]);
    const row = await assetRow(p, ids[0] as string);
    const attributes = await p.ctx.store.read.selectFrom('asset_attributes').select('name').where('asset_seq', '=', row?.seq ?? -1).orderBy('name').execute();
    assert.deepEqual(attributes.map((a) => a.name), ['TimeInstant', 'humidity', 'noise', 'temperature']);
  });

  it('accepts the real 2016 Santander entities as their site pushed them (coords position)', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:environmental:fixed:459';
    const res = await create(p, token, {
      id, type: 'urn:oc:entityType:iotdevice',
      TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2015-11-25T14:46:06.000Z', metadata: {} },
      batteryLevel: { type: 'urn:oc:attributeType:batteryLevel', value: '52.00', metadata: {} },
      position: { type: 'coords', value: '43.46263,-3.79880', metadata: {} },
      'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: '13.74', metadata: {} },
    });
    assert.equal(res.statusCode, 201, res.body);
    const row = await assetRow(p, id);
    assert.deepEqual([row?.latitude, row?.longitude], [43.46263, -3.7988]);
  });
});
