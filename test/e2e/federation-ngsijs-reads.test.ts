import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';
import { rejection, timeInstant } from '../helpers/federation.js';

/**
 * The federation's NGSI v2 reads driven by ngsijs, unmodified, over a real
 * socket: listing, one entity, its attributes and values, batch queries and
 * types; each site sees its own assets only.
 */
const require = createRequire(import.meta.url);
// ngsijs ships no type declarations.
const NGSI = require('ngsijs') as any;

const TI = timeInstant;
const SENSOR = 'urn:oc:entityType:iotdevice';
const BUS = 'urn:oc:entityType:bus';
const PREFIX = 'urn:oc:entity:santander:environment:reads:';

describeEachStore('federation reads with ngsijs', (platform) => {
  let santander: any;
  let london: any;

  before(async () => {
    const base = await platform().app.listen({ port: 0, host: '127.0.0.1' });
    const connect = async (site: string, centre?: { latitude: number; longitude: number }) => {
      const token = await platform().siteToken(site, centre);
      return new NGSI.Connection(`${base}/federation`, { headers: { Authorization: `Bearer ${token}` }, service: 'opencity' });
    };
    santander = await connect('santander');
    london = await connect('london', { latitude: 51.5074, longitude: -0.1278 });
    for (let i = 0; i < 25; i++) {
      await santander.v2.createEntity({
        id: `${PREFIX}${i}`, type: SENSOR, TimeInstant: TI(),
        temperature: { type: 'Number', value: 10 + i },
        status: { type: 'Text', value: i % 2 === 0 ? 'ok' : 'low' },
        location: { type: 'geo:point', value: `${(43.46 + i / 1000).toFixed(3)}, -3.80` },
      });
    }
    await santander.v2.createEntity({ id: 'urn:oc:entity:santander:transport:bus:1', type: BUS, TimeInstant: TI(), line: { type: 'Text', value: 'L1' }, address: { type: 'StructuredValue', value: { street: 'Calle Alta' } } });
    await london.v2.createEntity({ id: 'urn:oc:entity:london:environment:reads:0', type: SENSOR, TimeInstant: TI(), temperature: { type: 'Number', value: 99 } });
  });

  it('lists the site\'s entities in creation order, 20 by default, with counts and paging', async () => {
    const first = await santander.v2.listEntities({ count: true });
    assert.equal(first.count, 26);
    assert.equal(first.results.length, 20);
    assert.deepEqual(first.results.slice(0, 3).map((e: any) => e.id), [`${PREFIX}0`, `${PREFIX}1`, `${PREFIX}2`]);
    assert.deepEqual(first.results[0].temperature, { type: 'Number', value: 10, metadata: {} });

    const second = await santander.v2.listEntities({ type: SENSOR, offset: 20, limit: 100, count: true });
    assert.equal(second.count, 25);
    assert.deepEqual(second.results.map((e: any) => e.id), [20, 21, 22, 23, 24].map((i) => `${PREFIX}${i}`));

    const buses = await santander.v2.listEntities({ type: BUS, keyValues: true });
    assert.deepEqual(buses.results, [{ id: 'urn:oc:entity:santander:transport:bus:1', type: BUS, TimeInstant: '2017-07-25T13:35:00.000Z', line: 'L1', address: { street: 'Calle Alta' } }]);
  });

  it('filters by q, idPattern, georel and orders by an attribute', async () => {
    const warm = await santander.v2.listEntities({ q: 'temperature>30;status==ok', attrs: 'temperature', keyValues: true, limit: 100 });
    assert.deepEqual(warm.results, [32, 34].map((t) => ({ id: `${PREFIX}${t - 10}`, type: SENSOR, temperature: t })));

    const pattern = await santander.v2.listEntities({ idPattern: ':reads:1[0-2]$', values: true, attrs: 'temperature,status' });
    assert.deepEqual(pattern.results, [[20, 'ok'], [21, 'low'], [22, 'ok']]);

    const near = await santander.v2.listEntities({ georel: 'near;maxDistance:250', geometry: 'point', coords: '43.46,-3.80', orderBy: 'geo:distance', attrs: 'temperature', keyValues: true });
    assert.deepEqual(near.results.map((e: any) => e.temperature), [10, 11, 12]);

    const hottest = await santander.v2.listEntities({ type: SENSOR, orderBy: '!temperature', limit: 2, keyValues: true, attrs: 'temperature' });
    assert.deepEqual(hottest.results.map((e: any) => e.temperature), [34, 33]);
  });

  it("never shows another site's entities", async () => {
    const all = await london.v2.listEntities({ limit: 1000, count: true });
    assert.equal(all.count, 1);
    assert.deepEqual(all.results.map((e: any) => e.id), ['urn:oc:entity:london:environment:reads:0']);
    const asked = await santander.v2.listEntities({ id: 'urn:oc:entity:london:environment:reads:0' });
    assert.deepEqual(asked.results, []);
    const queried = await santander.v2.batchQuery({ entities: [{ idPattern: '.*' }], expression: { q: 'temperature==99' } });
    assert.deepEqual(queried.results, []);
    const types = await london.v2.listTypes();
    assert.deepEqual(types.results.map((t: any) => [t.type, t.count]), [[SENSOR, 1]]);
  });

  it('reads one entity, its attributes, one attribute and its value', async () => {
    const id = `${PREFIX}3`;
    const { entity } = await santander.v2.getEntity({ id, type: SENSOR });
    assert.equal(entity.temperature.value, 13);
    const keyValues = await santander.v2.getEntity({ id, keyValues: true });
    assert.equal(keyValues.entity.status, 'low');

    const { attributes } = await santander.v2.getEntityAttributes({ id });
    assert.equal(attributes.id, undefined);
    assert.deepEqual(attributes.status, { type: 'Text', value: 'low', metadata: {} });
    const flat = await santander.v2.getEntityAttributes({ id, keyValues: true });
    assert.equal(flat.attributes.temperature, 13);

    const { attribute } = await santander.v2.getEntityAttribute({ id, attribute: 'temperature' });
    assert.deepEqual(attribute, { type: 'Number', value: 13, metadata: {} });
    assert.equal((await santander.v2.getEntityAttributeValue({ id, attribute: 'temperature' })).value, 13);
    assert.equal((await santander.v2.getEntityAttributeValue({ id, attribute: 'status' })).value, 'low');
    const address = await santander.v2.getEntityAttributeValue({ id: 'urn:oc:entity:santander:transport:bus:1', attribute: 'address' });
    assert.deepEqual(address.value, { street: 'Calle Alta' });
  });

  it('answers with the NGSI error classes', async () => {
    const missing = `${PREFIX}missing`;
    for (const call of [
      () => santander.v2.getEntity({ id: missing }),
      () => santander.v2.getEntity({ id: `${PREFIX}3`, type: BUS }),
      () => santander.v2.getEntityAttributes({ id: missing }),
      () => santander.v2.getEntityAttribute({ id: `${PREFIX}3`, attribute: 'nothing' }),
      () => santander.v2.getEntityAttributeValue({ id: `${PREFIX}3`, attribute: 'nothing' }),
      () => santander.v2.getType('urn:oc:entityType:none'),
      () => london.v2.getType(BUS),
    ]) {
      const error = await rejection(call());
      assert.ok(error instanceof NGSI.NotFoundError, String(error));
    }
    const noAttribute = await rejection(santander.v2.getEntityAttribute({ id: `${PREFIX}3`, attribute: 'nothing' }));
    assert.equal(noAttribute.message, 'The entity does not have such an attribute');

    const badQuery = await rejection(santander.v2.batchQuery({ entities: [{ idPattern: '(' }] }));
    assert.ok(badQuery instanceof NGSI.BadRequestError, String(badQuery));
    assert.match(badQuery.message, /^Invalid entities\[0\]\.idPattern: /);
    const badExpression = await rejection(santander.v2.batchQuery({ expression: { q: "status=='open" } }));
    assert.ok(badExpression instanceof NGSI.BadRequestError, String(badExpression));
    assert.match(badExpression.message, /^Invalid expression\.q: /);
  });

  it('queries in batch by id, pattern and type, with counts and formats', async () => {
    const both = await santander.v2.batchQuery({
      entities: [{ id: `${PREFIX}1`, type: SENSOR }, { idPattern: ':bus:', typePattern: 'bus$' }],
      attrs: ['temperature', 'line'],
    }, { count: true, keyValues: true });
    assert.equal(both.count, 2);
    assert.deepEqual(both.results, [
      { id: `${PREFIX}1`, type: SENSOR, temperature: 11 },
      { id: 'urn:oc:entity:santander:transport:bus:1', type: BUS, line: 'L1' },
    ]);
    const page = await santander.v2.batchQuery({ entities: [{ idPattern: '.*', type: SENSOR }], expression: { q: 'status==low' } }, { limit: 3, offset: 2, count: true, values: true });
    assert.equal(page.count, 12);
    assert.equal(page.results.length, 3);
    const unique = await santander.v2.batchQuery({ entities: [{ id: `${PREFIX}0` }], attrs: ['status', 'status'] }, { unique: true });
    assert.deepEqual(unique.results, [['ok']]);
  });

  it('lists the site\'s types with their attributes and counts', async () => {
    const { results, count } = await santander.v2.listTypes({ count: true });
    assert.equal(count, 2);
    assert.deepEqual(results.map((t: any) => [t.type, t.count]), [[BUS, 1], [SENSOR, 25]]);
    assert.deepEqual(results[1].attrs.temperature, { types: ['Number'] });
    assert.deepEqual(Object.keys(results[0].attrs).sort(), ['TimeInstant', 'address', 'line']);
    const names = await santander.v2.listTypes({ values: true });
    assert.deepEqual(names.results, [BUS, SENSOR]);
    const { type } = await santander.v2.getType(SENSOR);
    assert.equal(type.count, 25);
    assert.deepEqual(type.attrs.status, { types: ['Text'] });
    assert.deepEqual(type.attrs.location, { types: ['geo:point'] });
  });
});
