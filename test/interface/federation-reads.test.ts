import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assetBody, create, remove, timeInstant, update, writeHeaders } from '../helpers/federation.js';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { parseListParameters } from '../../src/domain/ngsi-entity-query.js';
import { ManualTimers } from '../../src/domain/timers.js';
import { requireSite } from '../../src/services/federation.js';
import { listEntities } from '../../src/services/ngsi-reads.js';
import { Store } from '../../src/storage/store.js';

/**
 * The federation's NGSI v2 reads as a client sees them: statuses, headers and
 * bodies of GET /v2/entities (and its sub-resources), /v2/types and
 * POST /v2/op/query, over the caller's own site only; every bad parameter is
 * a 400 naming it.
 */

const V2 = '/federation/v2';
const SENSOR = 'urn:oc:entityType:iotdevice';
const id = (n: number) => `urn:oc:entity:santander:env:reads:${n}`;

describeEachStore('federation reads', (platform) => {
  let token = '';
  let londonToken = '';
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url: `${V2}${url}`, headers: { ...bearer(token), ...headers } });
  const query = (body: unknown, search = '', headers: Record<string, string> = {}) => platform().app.inject({
    method: 'POST', url: `${V2}/op/query${search}`, headers: { ...bearer(token), 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const ids = (res: { json(): unknown }) => (res.json() as Array<{ id: string }>).map((e) => e.id);

  before(async () => {
    const p: TestPlatform = platform();
    token = await p.siteToken('santander');
    londonToken = await p.siteToken('london', { latitude: 51.5074, longitude: -0.1278 });
    for (let n = 0; n < 6; n++) {
      const position = n < 5 ? { location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.8 + n * 0.01, 43.46] } } } : {};
      const res = await create(p, token, assetBody(id(n), { temperature: { type: 'Number', value: 20 + (n % 3) }, ...position }, n === 4 ? 'urn:oc:entityType:bus' : SENSOR));
      assert.equal(res.statusCode, 201, res.body);
      p.clock.advance(1000);
    }
    assert.equal((await create(p, londonToken, assetBody('urn:oc:entity:london:env:reads:0'))).statusCode, 201);
    // Asset 2 reports last; asset 5 is deleted.
    assert.equal((await update(p, token, id(2), { TimeInstant: timeInstant('2017-07-25T14:00:00.000Z'), status: { type: 'Text', value: 'late' } })).statusCode, 204);
    assert.equal((await create(p, token, assetBody(id(9)))).statusCode, 201);
    assert.equal((await remove(p, token, id(9))).statusCode, 204);
  });

  it('answers a list as application/json, with Fiware-Total-Count only when asked', async () => {
    const plain = await get('/entities');
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.headers['content-type'], 'application/json');
    assert.equal(plain.headers['fiware-total-count'], undefined);
    assert.deepEqual(ids(plain), [0, 1, 2, 3, 4, 5].map(id));
    const counted = await get(`/entities?type=${SENSOR}&options=count&limit=2&offset=1`);
    assert.equal(counted.headers['fiware-total-count'], '5');
    assert.deepEqual(ids(counted), [id(1), id(2)]);
    const beyond = await get('/entities?offset=100&options=count');
    assert.deepEqual(beyond.json(), []);
    assert.equal(beyond.headers['fiware-total-count'], '6');
    const listed = await get(`/entities?id=${id(3)},${id(0)},${id(9)}&options=count`);
    assert.deepEqual(ids(listed), [id(0), id(3)]);
    assert.equal(listed.headers['fiware-total-count'], '2');
  });

  it('orders by builtins and attributes, ties in creation order', async () => {
    assert.deepEqual(ids(await get('/entities?orderBy=!id&limit=3')), [id(5), id(4), id(3)]);
    assert.deepEqual(ids(await get('/entities?orderBy=!dateModified&limit=1')), [id(2)]);
    assert.deepEqual(ids(await get('/entities?orderBy=type,!dateCreated&limit=2')), [id(4), id(5)]);
    assert.deepEqual(ids(await get('/entities?orderBy=!temperature,id')), [id(2), id(5), id(1), id(4), id(0), id(3)]);
    const counted = await get('/entities?orderBy=temperature&limit=1&offset=1&options=count');
    assert.deepEqual(ids(counted), [id(3)]);
    assert.equal(counted.headers['fiware-total-count'], '6');
  });

  it('filters by q, patterns and georel, counting what matches', async () => {
    const q = await get('/entities?q=temperature>=21;!status&options=count');
    assert.deepEqual(ids(q), [id(1), id(4), id(5)]);
    assert.equal(q.headers['fiware-total-count'], '3');
    assert.deepEqual(ids(await get(`/entities?typePattern=bus$`)), [id(4)]);
    assert.deepEqual(ids(await get('/entities?idPattern=reads:[13]$&type=' + SENSOR)), [id(1), id(3)]);
    // 0.01° of longitude at 43.46° N is about 807 m.
    const near = await get('/entities?georel=near;maxDistance:900&geometry=point&coords=43.46,-3.78&orderBy=geo:distance');
    assert.deepEqual(ids(near), [id(2), id(1), id(3)]);
    const box = await get('/entities?georel=coveredBy&geometry=box&coords=43.45,-3.805;43.47,-3.785');
    assert.deepEqual(ids(box), [id(0), id(1)]);
    // Asset 5 has no location: it matches no geographical query, not even disjoint.
    const far = await get('/entities?georel=disjoint&geometry=box&coords=43.45,-3.805;43.47,-3.785&options=count');
    assert.deepEqual(ids(far), [id(2), id(3), id(4)]);
  });

  it('writes entities in the keyValues, values and unique formats, with attrs in order', async () => {
    assert.deepEqual((await get(`/entities?id=${id(2)}&options=keyValues&attrs=status,temperature`)).json(), [{ id: id(2), type: SENSOR, status: 'late', temperature: 22 }]);
    assert.deepEqual((await get(`/entities?id=${id(2)}&options=values&attrs=status,temperature,nothing`)).json(), [['late', 22]]);
    assert.deepEqual((await get(`/entities?id=${id(1)}&options=unique&attrs=temperature,temperature`)).json(), [[21]]);
    const normalized = (await get(`/entities?id=${id(1)}&attrs=temperature`)).json();
    assert.deepEqual(normalized, [{ id: id(1), type: SENSOR, temperature: { type: 'Number', value: 21, metadata: {} } }]);
  });

  it('reads one entity and its parts', async () => {
    const entity = await get(`/entities/${id(2)}?attrs=status&options=keyValues`);
    assert.equal(entity.headers['content-type'], 'application/json');
    assert.deepEqual(entity.json(), { id: id(2), type: SENSOR, status: 'late' });
    assert.deepEqual((await get(`/entities/${id(2)}?options=values&attrs=temperature,status`)).json(), [22, 'late']);
    const attrs = await get(`/entities/${id(2)}/attrs?attrs=status`);
    assert.deepEqual(attrs.json(), { status: { type: 'Text', value: 'late', metadata: {} } });
    assert.deepEqual((await get(`/entities/${id(2)}/attrs/status`)).json(), { type: 'Text', value: 'late', metadata: {} });
  });

  it('writes an attribute value as Orion does, by its kind and the Accept header', async () => {
    const text = await get(`/entities/${id(2)}/attrs/status/value`);
    assert.equal(text.headers['content-type'], 'text/plain');
    assert.equal(text.body, '"late"');
    const number = await get(`/entities/${id(2)}/attrs/temperature/value`, { accept: 'application/json, text/plain' });
    assert.equal(number.headers['content-type'], 'text/plain');
    assert.equal(number.body, '22');
    const object = await get(`/entities/${id(0)}/attrs/location/value`);
    assert.equal(object.headers['content-type'], 'application/json');
    assert.deepEqual(object.json(), { type: 'Point', coordinates: [-3.8, 43.46] });
    assert.equal((await get(`/entities/${id(0)}/attrs/location/value`, { accept: 'text/plain' })).headers['content-type'], 'text/plain');
    const refused = await get(`/entities/${id(2)}/attrs/status/value`, { accept: 'application/json' });
    assert.equal(refused.statusCode, 406);
    assert.deepEqual(refused.json(), { error: 'NotAcceptable', description: 'Not Acceptable: accepted MIME types: text/plain' });
    assert.equal((await get(`/entities/${id(0)}/attrs/location/value`, { accept: 'image/png' })).statusCode, 406);
  });

  it("refuses another site's ids on every by-id read and never lists them", async () => {
    const foreign = 'urn:oc:entity:london:env:reads:0';
    for (const suffix of ['', '/attrs', '/attrs/temperature', '/attrs/temperature/value']) {
      const res = await get(`/entities/${foreign}${suffix}`);
      assert.equal(res.statusCode, 400, suffix);
      assert.deepEqual(res.json(), { error: 'BadRequest', description: 'Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:' });
    }
    assert.deepEqual((await get(`/entities?id=${foreign}`)).json(), []);
    assert.deepEqual(ids(await query({ entities: [{ idPattern: 'london' }] })), []);
    const london = await platform().app.inject({ method: 'GET', url: `${V2}/entities?options=count`, headers: bearer(londonToken) });
    assert.deepEqual(ids(london), [foreign]);
    assert.equal(london.headers['fiware-total-count'], '1');
    const missing = await get(`/entities/${id(9)}`);
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: 'NotFound', description: 'The requested entity has not been found. Check type and id' });
  });

  it('refuses every unreadable parameter with a 400 naming it', async () => {
    const cases: Array<[string, RegExp]> = [
      ['limit=0', /^Invalid limit: /],
      ['limit=1001', /^Invalid limit: must be a whole number from 1 to 1000$/],
      ['limit=ten', /^Invalid limit: /],
      ['limit=1&limit=2', /^Invalid limit: given more than once$/],
      ['offset=-1', /^Invalid offset: /],
      [`id=${id(1)}&idPattern=x`, /^Invalid idPattern: id and idPattern exclude each other$/],
      ['type=a&typePattern=b', /^Invalid typePattern: /],
      ['idPattern=(', /^Invalid idPattern: "\(" is not a valid regular expression$/],
      ['id=a,,b', /^Invalid id: /],
      ["q=status=='open", /^Invalid q: unterminated quote/],
      ['q=', /^Invalid q: /],
      ['georel=near;maxDistance:10&geometry=point', /^Invalid georel: georel, geometry and coords go together$/],
      ['georel=near&geometry=point&coords=43,-3', /^Invalid georel: near needs maxDistance or minDistance$/],
      ['georel=coveredBy&geometry=circle&coords=43,-3', /^Invalid geometry: /],
      ['georel=coveredBy&geometry=box&coords=43,-3;x', /^Invalid coords: /],
      ['orderBy=id,!id', /^Invalid orderBy: "id" is given more than once$/],
      ['orderBy=geo:distance', /^Invalid orderBy: geo:distance needs georel=near$/],
      ['options=upsert', /^Invalid options: "upsert" is not supported here/],
      ['options=keyValues,values', /^Invalid options: keyValues and values exclude each other$/],
      ['mq=temperature.accuracy<1', /^Invalid mq: /],
      ['metadata=accuracy', /^Invalid metadata: /],
      ['attrs=a,', /^Invalid attrs: /],
    ];
    for (const [search, description] of cases) {
      const res = await get(`/entities?${search}`);
      assert.equal(res.statusCode, 400, search);
      assert.equal(res.headers['content-type'], 'application/json', search);
      assert.equal(res.json().error, 'BadRequest', search);
      assert.match(res.json().description, description, search);
    }
    assert.match((await get(`/entities/${id(1)}?options=count`)).json().description, /^Invalid options: "count"/);
    assert.match((await get(`/entities/${id(1)}/attrs/temperature?options=keyValues`)).json().description, /^Invalid options: "keyValues"/);
    assert.match((await get(`/entities/${id(1)}/attrs/temperature/value?attrs=status`)).json().description, /^Invalid attrs: /);
    assert.match((await get(`/entities/${id(1)}?type=`)).json().description, /^Invalid type: empty$/);
    assert.match((await get('/types?limit=2000')).json().description, /^Invalid limit: /);
    assert.match((await get('/types?options=keyValues')).json().description, /^Invalid options: /);
  });

  it('answers POST /v2/op/query like the list, and refuses bad bodies naming the field', async () => {
    const res = await query({ entities: [{ id: id(3) }, { idPattern: 'reads:[01]$', type: SENSOR }], attrs: ['temperature'], expression: { q: 'temperature<22' } }, '?options=count,keyValues&orderBy=!id');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.headers['fiware-total-count'], '3');
    assert.deepEqual(res.json(), [3, 1, 0].map((n) => ({ id: id(n), type: SENSOR, temperature: 20 + (n % 3) })));
    assert.deepEqual(ids(await query({})), [0, 1, 2, 3, 4, 5].map(id));
    const geo = await query({ expression: { georel: 'near;maxDistance:100', geometry: 'point', coords: '43.46,-3.79' } });
    assert.deepEqual(ids(geo), [id(1)]);

    const bad: Array<[unknown, RegExp]> = [
      ['[', /^HTTP body is not valid JSON!$/],
      [[], /^Invalid body: must be a JSON object$/],
      [{ entities: {} }, /^Invalid entities: must be an array$/],
      [{ entities: [{ type: SENSOR }] }, /^Invalid entities\[0\]: id or idPattern is required$/],
      [{ entities: [{ id: 1 }] }, /^Invalid entities\[0\]\.id: must be a string$/],
      [{ entities: [{ id: 'x', colour: 'red' }] }, /^Invalid entities\[0\]: unknown field "colour"$/],
      [{ attrs: 'temperature' }, /^Invalid attrs: /],
      [{ expression: { q: 'a==' } }, /^Invalid expression\.q: /],
      [{ expression: { georel: 'near;maxDistance:5' } }, /^Invalid expression\.georel: /],
      [{ expression: { coords: '1,2', georel: 'within', geometry: 'point' } }, /^Invalid expression\.georel: /],
      [{ metadata: ['accuracy'] }, /^Invalid metadata: /],
      [{ filter: 1 }, /^Invalid body: unknown field "filter"$/],
    ];
    for (const [body, description] of bad) {
      const refused = await query(body);
      assert.equal(refused.statusCode, 400, JSON.stringify(body));
      assert.match(refused.json().description, description, JSON.stringify(body));
    }
    assert.match((await query({}, '?limit=0')).json().description, /^Invalid limit: /);
    const wrongType = await query({}, '', { 'content-type': 'text/plain' });
    assert.equal(wrongType.statusCode, 415);
    assert.equal(wrongType.json().error, 'UnsupportedMediaType');
  });

  it("lists the site's types by name, paged, and answers 404 for a type it has none of", async () => {
    const all = await get('/types?options=count&limit=1&offset=1');
    assert.equal(all.headers['fiware-total-count'], '2');
    assert.deepEqual(all.json(), [{ type: SENSOR, attrs: { TimeInstant: { types: ['urn:oc:attributeType:ISO8601'] }, location: { types: ['geo:json'] }, status: { types: ['Text'] }, temperature: { types: ['Number'] } }, count: 5 }]);
    assert.deepEqual((await get('/types?options=values')).json(), ['urn:oc:entityType:bus', SENSOR]);
    const bare = await get('/types/urn:oc:entityType:bus?options=noAttrDetail');
    assert.deepEqual(bare.json(), { attrs: { TimeInstant: { types: [] }, location: { types: [] }, temperature: { types: [] } }, count: 1 });
    const missing = await get('/types/urn:oc:entityType:ghost');
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), { error: 'NotFound', description: 'Entity type not found' });
    const london = await platform().app.inject({ method: 'GET', url: `${V2}/types`, headers: bearer(londonToken) });
    assert.deepEqual((london.json() as Array<{ type: string; count: number }>).map((t) => [t.type, t.count]), [[SENSOR, 1]]);
  });

  it('evaluates in memory on a scan read a chunk at a time, and refuses what would pass its bound', async () => {
    const p = platform();
    const site = await requireSite(p.ctx, 'santander');
    const ids = (json: string) => (JSON.parse(json) as Array<{ id: string }>).map((e) => e.id);
    const all = parseListParameters({ q: 'temperature>=20', options: 'count' });
    const whole = await listEntities(p.ctx, site, all, { chunk: 2, maxScanned: 6 });
    assert.equal(whole.total, 6);
    assert.deepEqual(ids(whole.json), [0, 1, 2, 3, 4, 5].map(id));
    const paged = await listEntities(p.ctx, site, parseListParameters({ q: 'temperature>=20', offset: '3', limit: '2' }), { chunk: 2, maxScanned: 6 });
    assert.deepEqual(ids(paged.json), [id(3), id(4)]);
    const early = await listEntities(p.ctx, site, parseListParameters({ q: 'temperature>=20', limit: '2' }), { chunk: 2, maxScanned: 3 });
    assert.deepEqual(ids(early.json), [id(0), id(1)]);
    for (const query of [all, parseListParameters({ q: 'temperature>=20', orderBy: 'temperature', limit: '1' })]) {
      await assert.rejects(listEntities(p.ctx, site, query, { chunk: 2, maxScanned: 5 }), (e: Error) => /^Invalid query: it would evaluate more than 5 entities one by one/.test(e.message));
    }
  });

  it('documents every read in the OpenAPI document', async () => {
    const paths = (await platform().app.inject({ method: 'GET', url: '/docs/json' })).json().paths as Record<string, Record<string, unknown>>;
    for (const path of ['/federation/v2/entities', '/federation/v2/entities/{assetId}', '/federation/v2/entities/{assetId}/attrs', '/federation/v2/entities/{assetId}/attrs/{attrName}',
      '/federation/v2/entities/{assetId}/attrs/{attrName}/value', '/federation/v2/types', '/federation/v2/types/{entityType}']) {
      assert.ok(paths[path]?.get, path);
    }
    assert.ok(paths['/federation/v2/op/query']?.post);
  });

  it('answers a listing asked again with what another process committed in between, and only to its own site', async () => {
    const p = platform();
    const url = `/entities?type=${SENSOR}&attrs=temperature&options=count`;
    const first = await get(url);
    const kept = await get(url);
    assert.equal(kept.statusCode, 200);
    assert.equal(kept.headers['content-type'], 'application/json');
    assert.equal(kept.headers['fiware-total-count'], first.headers['fiware-total-count']);
    assert.deepEqual(kept.json(), first.json());
    // The same URL, asked by another site or with a service header the route refuses.
    assert.deepEqual(ids(await get(url, bearer(londonToken))), ['urn:oc:entity:london:env:reads:0']);
    assert.deepEqual(ids(await get(url, bearer(londonToken))), ['urn:oc:entity:london:env:reads:0']);
    for (let i = 0; i < 2; i++) assert.equal((await get(url, { 'fiware-service': 'elsewhere' })).statusCode, 400);

    // Another connection on the same database, as a second server would be, updates one sensor and creates one.
    const store = Store.open(p.db.url);
    const other = await buildApp({ config: testConfig({ databaseUrl: p.db.url }), store, clock: p.clock, timers: new ManualTimers(p.clock) });
    try {
      const updated = await other.app.inject({
        method: 'POST', url: `${V2}/entities/${encodeURIComponent(id(1))}/attrs`, headers: writeHeaders(token),
        payload: JSON.stringify({ TimeInstant: timeInstant('2017-07-25T15:00:00.000Z'), temperature: { type: 'Number', value: 99 } }),
      });
      assert.equal(updated.statusCode, 204, updated.body);
      const created = await other.app.inject({ method: 'POST', url: `${V2}/entities`, headers: writeHeaders(token), payload: JSON.stringify(assetBody(id(7))) });
      assert.equal(created.statusCode, 201, created.body);
    } finally {
      await other.app.close();
      await store.close();
    }
    const after = await get(url);
    assert.equal(after.headers['fiware-total-count'], String(Number(first.headers['fiware-total-count']) + 1));
    assert.deepEqual(ids(after), [...ids(first), id(7)]);
    assert.deepEqual((after.json() as Array<{ id: string; temperature?: { value: unknown } }>).find((e) => e.id === id(1))?.temperature?.value, 99);
    assert.deepEqual((await get(url)).json(), after.json());
  });

  it('asks the token and role of every read', async () => {
    const anonymous = await platform().app.inject({ method: 'GET', url: `${V2}/entities` });
    assert.equal(anonymous.statusCode, 401);
    const stranger = await platform().clientToken('someone');
    const forbidden = await platform().app.inject({ method: 'GET', url: `${V2}/types`, headers: bearer(stranger) });
    assert.equal(forbidden.statusCode, 403);
  });
});
