import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { before, it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';
import { rejection, timeInstant } from '../helpers/federation.js';

/**
 * The federation interface driven by real clients over a real socket:
 * ngsijs (an NGSI v2 client library, as sites use against Orion) and the
 * original site client's pattern (update first, create when the update fails).
 */
const require = createRequire(import.meta.url);
// ngsijs ships no type declarations.
const NGSI = require('ngsijs') as any;

const TI = timeInstant;
const NOTIFICATION = JSON.parse(fs.readFileSync(new URL('../fixtures/orion-v2-notification-sample.json', import.meta.url), 'utf8')) as {
  body: { data: Array<Record<string, unknown>> };
};

describeEachStore('federation with real clients', (platform) => {
  let base = '';
  before(async () => {
    base = await platform().app.listen({ port: 0, host: '127.0.0.1' });
  });

  const connect = async (site: string, centre?: { latitude: number; longitude: number }) => {
    const token = await platform().siteToken(site, centre);
    return new NGSI.Connection(`${base}/federation`, { headers: { Authorization: `Bearer ${token}` }, service: 'opencity' });
  };

  it('ngsijs creates, appends attributes to, reads and deletes an asset', async () => {
    const connection = await connect('santander');
    const id = 'urn:oc:entity:santander:environment:ngsijs:1';
    const created = await connection.v2.createEntity({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI(), temperature: { type: 'Number', value: 12.5 } });
    assert.equal(created.location, `/v2/entities/${id}?type=urn:oc:entityType:iotdevice`);

    await connection.v2.appendEntityAttributes({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI('2017-07-25T13:40:00.000Z'), humidity: { type: 'Number', value: 55 } });
    const { entity } = await connection.v2.getEntity({ id });
    assert.equal(entity.id, id);
    assert.deepEqual(entity.humidity, { type: 'Number', value: 55, metadata: {} });
    assert.deepEqual(entity.temperature, { type: 'Number', value: 12.5, metadata: {} });
    assert.equal(entity.TimeInstant.value, '2017-07-25T13:40:00.000Z');

    await connection.v2.deleteEntity({ id, type: 'urn:oc:entityType:iotdevice' });
    const gone = await rejection(connection.v2.getEntity({ id }));
    assert.ok(gone instanceof NGSI.NotFoundError, String(gone));
  });

  it('ngsijs recognises AlreadyExists, NotFound and BadRequest', async () => {
    const connection = await connect('santander');
    const id = 'urn:oc:entity:santander:environment:ngsijs:2';
    await connection.v2.createEntity({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI() });

    const exists = await rejection(connection.v2.createEntity({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI() }));
    assert.ok(exists instanceof NGSI.AlreadyExistsError, String(exists));

    const missing = 'urn:oc:entity:santander:environment:ngsijs:missing';
    const notFound = await rejection(connection.v2.appendEntityAttributes({ id: missing, TimeInstant: TI() }));
    assert.ok(notFound instanceof NGSI.NotFoundError, String(notFound));
    assert.equal(notFound.message, 'The requested entity has not been found. Check type and id');
    const deleteMissing = await rejection(connection.v2.deleteEntity(missing));
    assert.ok(deleteMissing instanceof NGSI.NotFoundError, String(deleteMissing));

    const badTime = await rejection(connection.v2.createEntity({ id: `${id}:x`, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI('2016-10-04T13:45:00Z') }));
    assert.ok(badTime instanceof NGSI.BadRequestError, String(badTime));
    assert.equal(badTime.message, 'Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got "2016-10-04T13:45:00Z" (no milliseconds)');

    const badPrefix = await rejection(connection.v2.appendEntityAttributes({ id: 'urn:oc:entity:london:x', TimeInstant: TI() }));
    assert.ok(badPrefix instanceof NGSI.BadRequestError, String(badPrefix));
    assert.match(badPrefix.message, /^Asset\.id prefix wrong/);
  });

  it("replays the real site client: update first, create when the update answers 404", async () => {
    const p = platform();
    const token = await p.siteToken('aarhus', { latitude: 56.1572, longitude: 10.2107 });
    // The site client forwards the headers of its local broker's notification.
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'fiware-service': 'opencity', 'fiware-servicepath': '/' };
    const push = async (entity: Record<string, unknown>): Promise<number[]> => {
      const { id, type, ...attributes } = entity;
      const updated = await fetch(`${base}/federation/v2/entities/${id as string}/attrs`, { method: 'POST', headers, body: JSON.stringify(attributes) });
      await updated.arrayBuffer();
      if (updated.status < 400) return [updated.status];
      const created = await fetch(`${base}/federation/v2/entities`, { method: 'POST', headers, body: JSON.stringify({ id, type, ...attributes }) });
      await created.arrayBuffer();
      return [updated.status, created.status];
    };
    const entities = NOTIFICATION.body.data;
    assert.ok(entities.length >= 2);
    for (const entity of entities) assert.deepEqual(await push(entity), [404, 201]);
    // The next notification finds them.
    for (const entity of entities) assert.deepEqual(await push({ ...entity, TimeInstant: TI('2017-07-25T14:35:00.000Z') }), [204]);

    const first = entities[0] as { id: string; location: { value: string } };
    const read = await fetch(`${base}/federation/v2/entities/${first.id}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'application/json');
    const entity = (await read.json()) as Record<string, { value: unknown }>;
    assert.equal(entity.TimeInstant?.value, '2017-07-25T14:35:00.000Z');
  });
});
