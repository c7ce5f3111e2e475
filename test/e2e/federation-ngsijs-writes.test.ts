import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';
import { rejection, timeInstant } from '../helpers/federation.js';

/**
 * The NGSI v2 writes driven by ngsijs, unmodified, over a real socket: every
 * write call a site's NGSI client makes, and the error classes it raises.
 */
const require = createRequire(import.meta.url);
// ngsijs ships no type declarations.
const NGSI = require('ngsijs') as any;

const TYPE = 'urn:oc:entityType:iotdevice';
const TI = timeInstant;
const idOf = (name: string) => `urn:oc:entity:santander:environment:ngsijs-writes:${name}`;

describeEachStore('federation writes with ngsijs', (platform) => {
  let base = '';
  let connection: any;
  before(async () => {
    base = await platform().app.listen({ port: 0, host: '127.0.0.1' });
    const token = await platform().siteToken('santander');
    connection = new NGSI.Connection(`${base}/federation`, { headers: { Authorization: `Bearer ${token}` }, service: 'opencity', servicepath: '/' });
  });

  const created = async (name: string, attrs: Record<string, unknown> = {}) => {
    const id = idOf(name);
    await connection.v2.createEntity({ id, type: TYPE, TimeInstant: TI(), humidity: { type: 'Number', value: 40 }, ...attrs });
    return id;
  };
  const entity = async (id: string) => (await connection.v2.getEntity({ id })).entity;

  it('updateEntityAttributes (PATCH): existing attributes; NotFound for a missing entity, BadRequest for a bad body', async () => {
    const id = await created('patch');
    await connection.v2.updateEntityAttributes({ id, type: TYPE, TimeInstant: TI('2017-07-25T13:40:00.000Z'), humidity: { type: 'Number', value: 41 } });
    assert.equal((await entity(id)).humidity.value, 41);
    await connection.v2.updateEntityAttributes({ id, TimeInstant: '2017-07-25T13:41:00.000Z', humidity: 42 }, { keyValues: true });
    assert.deepEqual((await entity(id)).humidity, { type: 'Number', value: 42, metadata: {} });
    const missing = await rejection(connection.v2.updateEntityAttributes({ id: idOf('nobody'), TimeInstant: TI() }));
    assert.ok(missing instanceof NGSI.NotFoundError, String(missing));
    const bad = await rejection(connection.v2.updateEntityAttributes({ id, humidity: { type: 'Number', value: 1 } }));
    assert.ok(bad instanceof NGSI.BadRequestError, String(bad));
    assert.equal(bad.message, 'Asset attribute TimeInstant in payload not found!');
    // Orion answers 422 for attributes the entity lacks: ngsijs raises InvalidResponse.
    const lacking = await rejection(connection.v2.updateEntityAttributes({ id, TimeInstant: TI(), pressure: { type: 'Number', value: 1 } }));
    assert.ok(lacking instanceof NGSI.InvalidResponseError, String(lacking));
  });

  it('replaceEntityAttributes (PUT …/attrs)', async () => {
    const id = await created('replace');
    await connection.v2.replaceEntityAttributes({ id, TimeInstant: TI('2017-07-25T13:40:00.000Z'), pressure: { type: 'Number', value: 1013 } });
    const after = await entity(id);
    assert.equal(after.humidity, undefined);
    assert.equal(after.pressure.value, 1013);
    const missing = await rejection(connection.v2.replaceEntityAttributes({ id: idOf('nobody'), TimeInstant: TI() }));
    assert.ok(missing instanceof NGSI.NotFoundError, String(missing));
  });

  it('replaceEntityAttribute and replaceEntityAttributeValue (PUT of one attribute, of its value)', async () => {
    const id = await created('one');
    await connection.v2.replaceEntityAttribute({ id, attribute: 'humidity', value: 55, metadata: { TimeInstant: { type: 'DateTime', value: '2017-07-25T13:45:00.000Z' } } });
    let after = await entity(id);
    assert.deepEqual([after.humidity.type, after.humidity.value, after.TimeInstant.value], ['Number', 55, '2017-07-25T13:45:00.000Z']);
    await connection.v2.replaceEntityAttributeValue({ id, attribute: 'humidity', value: 56 });
    await connection.v2.replaceEntityAttributeValue({ id, attribute: 'humidity', value: 'high' });
    after = await entity(id);
    assert.deepEqual([after.humidity.type, after.humidity.value], ['Number', 'high']);
    const noAttribute = await rejection(connection.v2.replaceEntityAttributeValue({ id, attribute: 'pressure', value: 1 }));
    assert.ok(noAttribute instanceof NGSI.NotFoundError, String(noAttribute));
    assert.equal(noAttribute.message, 'The entity does not have such an attribute');
    const noEntity = await rejection(connection.v2.replaceEntityAttribute({ id: idOf('nobody'), attribute: 'humidity', value: 1 }));
    assert.ok(noEntity instanceof NGSI.NotFoundError, String(noEntity));
  });

  it('appendEntityAttributes, strict too', async () => {
    const id = await created('append');
    await connection.v2.appendEntityAttributes({ id, TimeInstant: TI(), pressure: { type: 'Number', value: 1 } }, { strict: true });
    await connection.v2.appendEntityAttributes({ id, TimeInstant: '2017-07-25T13:40:00.000Z', wind: 3 }, { keyValues: true });
    const after = await entity(id);
    assert.deepEqual([after.pressure.value, after.wind.value], [1, 3]);
    const existing = await rejection(connection.v2.appendEntityAttributes({ id, TimeInstant: TI(), pressure: { type: 'Number', value: 2 } }, { strict: true }));
    assert.ok(existing instanceof NGSI.InvalidResponseError, String(existing));
    assert.equal((await entity(id)).pressure.value, 1);
    const missing = await rejection(connection.v2.appendEntityAttributes({ id: idOf('nobody'), TimeInstant: TI() }, { strict: true }));
    assert.ok(missing instanceof NGSI.NotFoundError, String(missing));
  });

  it('deleteEntityAttribute', async () => {
    const id = await created('remove');
    await connection.v2.deleteEntityAttribute({ id, attribute: 'humidity' });
    assert.equal((await entity(id)).humidity, undefined);
    const again = await rejection(connection.v2.deleteEntityAttribute({ id, attribute: 'humidity' }));
    assert.ok(again instanceof NGSI.NotFoundError, String(again));
    // A 400 on this call is not one ngsijs reads (Orion never answers it there): InvalidResponse.
    const timeInstant = await rejection(connection.v2.deleteEntityAttribute({ id, attribute: 'TimeInstant' }));
    assert.ok(timeInstant instanceof NGSI.InvalidResponseError, String(timeInstant));
    assert.ok((await entity(id)).TimeInstant);
  });

  it('createEntity with upsert and with keyValues', async () => {
    const id = idOf('upsert');
    const first = await connection.v2.createEntity({ id, type: TYPE, TimeInstant: TI(), level: { type: 'Number', value: 1 } }, { upsert: true });
    assert.equal(first.location, `/v2/entities/${id}?type=${TYPE}`);
    await connection.v2.createEntity({ id, type: TYPE, TimeInstant: TI('2017-07-25T13:40:00.000Z'), level: { type: 'Number', value: 2 } }, { upsert: true });
    assert.equal((await entity(id)).level.value, 2);
    const kv = idOf('kv');
    await connection.v2.createEntity({ id: kv, type: TYPE, TimeInstant: '2017-07-25T13:40:00.000Z', level: 3 }, { keyValues: true });
    assert.deepEqual((await entity(kv)).level, { type: 'Number', value: 3, metadata: {} });
    const exists = await rejection(connection.v2.createEntity({ id: kv, type: TYPE, TimeInstant: '2017-07-25T13:40:00.000Z' }, { keyValues: true }));
    assert.ok(exists instanceof NGSI.AlreadyExistsError, String(exists));
    const bad = await rejection(connection.v2.createEntity({ id: idOf('bad'), type: TYPE, TimeInstant: 'now' }, { keyValues: true, upsert: true }));
    assert.ok(bad instanceof NGSI.BadRequestError, String(bad));
  });

  it('batchUpdate with each action type; a bad batch is a BadRequest, a failed one names its entities', async () => {
    const [a, b] = [idOf('batch-a'), idOf('batch-b')];
    const at = (value: string) => ({ TimeInstant: TI(value) });
    await connection.v2.batchUpdate({ actionType: 'append', entities: [{ id: a, type: TYPE, ...at('2017-07-25T13:40:00.000Z'), v: { type: 'Number', value: 1 } }, { id: b, type: TYPE, ...at('2017-07-25T13:40:00.000Z'), v: { type: 'Number', value: 1 } }] });
    await connection.v2.batchUpdate({ actionType: 'appendStrict', entities: [{ id: a, ...at('2017-07-25T13:41:00.000Z'), w: { type: 'Number', value: 2 } }] });
    await connection.v2.batchUpdate({ actionType: 'update', entities: [{ id: a, ...at('2017-07-25T13:42:00.000Z'), v: { type: 'Number', value: 3 } }] });
    await connection.v2.batchUpdate({ actionType: 'replace', entities: [{ id: b, ...at('2017-07-25T13:43:00.000Z'), z: { type: 'Number', value: 4 } }] });
    await connection.v2.batchUpdate({ actionType: 'append', entities: [{ id: b, TimeInstant: '2017-07-25T13:44:00.000Z', y: 5 }] }, { keyValues: true });
    await connection.v2.batchUpdate({ actionType: 'delete', entities: [{ id: a, w: {} }] });
    const first = await entity(a);
    assert.deepEqual([first.v.value, first.w], [3, undefined]);
    const second = await entity(b);
    assert.deepEqual(Object.keys(second).sort(), ['TimeInstant', 'id', 'type', 'y', 'z']);
    await connection.v2.batchUpdate({ actionType: 'delete', entities: [{ id: b }] });
    assert.ok((await rejection(connection.v2.getEntity({ id: b }))) instanceof NGSI.NotFoundError);

    const bad = await rejection(connection.v2.batchUpdate({ actionType: 'merge', entities: [{ id: a }] }));
    assert.ok(bad instanceof NGSI.BadRequestError, String(bad));
    const failed = await rejection(connection.v2.batchUpdate({ actionType: 'update', entities: [{ id: idOf('nobody'), ...at('2017-07-25T13:45:00.000Z') }] }));
    assert.ok(failed instanceof NGSI.InvalidResponseError, String(failed));
  });
});
