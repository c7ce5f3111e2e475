import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { bearer, describeEachStore } from '../helpers/platform.js';

const T0 = Date.parse('2026-04-01T00:00:00.000Z');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const city = (n: number) => `urn:oc:entity:multi:environment:compare:${n}`;
const TYPE = 'urn:oc:entityType:iotdevice';

describeEachStore('many assets in one call', (platform) => {
  const multi = new HistorySite(platform, 'multi');
  const other = new HistorySite(platform, 'othersite');
  const experimenters = new HistorySite(platform, 'experimenters');
  let privateId = '';
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });

  before(async () => {
    await multi.register();
    await other.register();
    await experimenters.register();
    for (let n = 1; n <= 3; n++) {
      await multi.create(city(n), temperature(String(10 * n)), T0 + n);
      await multi.update(city(n), temperature(String(10 * n + 1)), T0 + HOUR + n);
    }
    // An asset of the site without the attribute: not part of a selection by attribute.
    await multi.create(city(4), { humidity: { type: 'Number', value: 50 } }, T0 + 10);
    await other.create('urn:oc:entity:othersite:environment:compare:1', temperature('99'), T0 + 20);
    const owner = await platform().userToken('multi-owner');
    privateId = `urn:oc:entity:experimenters:${owner.userId}:exp-9:sensor1`;
    await experimenters.create(privateId, temperature('5'), T0 + 30);
  });

  it('lists the assets asked for, a series each, by asset id', async () => {
    const res = await get(`/datasource/readings?attr=temperature:ambient&assets=${city(2)},${city(1)}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.series.map((s: { assetId: string }) => s.assetId), [city(1), city(2)]);
    assert.deepEqual(body.series[0].readings.map((r: { attrValue: string; recvTime: string }) => [r.recvTime, r.attrValue]),
      [[iso(T0 + 1), '10'], [iso(T0 + HOUR + 1), '11']]);
  });

  it('chooses by type and site, and aggregates each series', async () => {
    const res = await get(`/datasource/readings?attr=temperature:ambient&type=${TYPE}&site=multi&aggrMethod=avg,max&aggrPeriod=P1D`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      series: [1, 2, 3].map((n) => ({ assetId: city(n), aggregates: [{ start: iso(T0), count: 2, avg: 10 * n + 0.5, max: 10 * n + 1 }] })),
    });
    const values = await get(`/datasource/readings?attr=temperature:ambient&site=othersite&values=true`);
    assert.deepEqual(values.json(), { series: [{ assetId: 'urn:oc:entity:othersite:environment:compare:1', values: ['99'] }] });
  });

  it('answers CSV with every series under one header, each row led by its asset', async () => {
    const res = await get(`/datasource/readings?attr=temperature:ambient&assets=${city(1)},${city(3)}&lastN=1`, { accept: 'text/csv' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.equal(res.body, 'assetId,recvTime,attrName,attrType,attrValue\r\n'
      + `${city(1)},${iso(T0 + HOUR + 1)},temperature:ambient,urn:oc:attributeType:temperature:ambient,11\r\n`
      + `${city(3)},${iso(T0 + HOUR + 3)},temperature:ambient,urn:oc:attributeType:temperature:ambient,31\r\n`);
  });

  it('keeps experiment assets to those who may see them: a 404 when listed, left out of a selection', async () => {
    const listed = `/datasource/readings?attr=temperature:ambient&assets=${city(1)},${privateId}`;
    const refused = await get(listed);
    assert.equal(refused.statusCode, 404, refused.body);
    assert.ok(refused.json().description.includes(privateId));
    const unknown = await get(`/datasource/readings?attr=temperature:ambient&assets=${city(1)},urn:oc:entity:multi:environment:compare:77`);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, refused.json().error);

    const owner = await platform().userToken('multi-owner');
    const seen = await get(listed, bearer(owner.token));
    assert.equal(seen.statusCode, 200, seen.body);
    assert.equal(seen.json().series.length, 2);

    const selection = `/datasource/readings?attr=temperature:ambient&type=${TYPE}&lastN=1`;
    const anonymous = (await get(selection)).json().series.map((s: { assetId: string }) => s.assetId);
    assert.equal(anonymous.includes(privateId), false);
    assert.equal(anonymous.length, 4);
    const admin = await platform().userToken('multi-admin', ['administrator']);
    const all = (await get(selection, bearer(admin.token))).json().series.map((s: { assetId: string }) => s.assetId);
    assert.equal(all.includes(privateId), true);
  });

  it('documents the call and the export in the OpenAPI document', async () => {
    const doc = (await get('/docs/json')).json();
    assert.ok(doc.paths['/datasource/readings']?.get, Object.keys(doc.paths).join(' '));
    assert.ok(doc.paths['/datasource/{assetId}/export']?.get);
    const params = doc.paths['/datasource/readings'].get.parameters.map((p: { name: string }) => p.name);
    for (const name of ['attr', 'assets', 'type', 'site', 'aggrMethod', 'aggrPeriod', 'timeIndex']) assert.ok(params.includes(name), name);
  });

  it('refuses a request it cannot answer, naming the parameter', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `urn:oc:entity:multi:environment:compare:${i + 100}`).join(',');
    for (const [query, name] of [
      ['assets=' + city(1), 'attr'],
      ['attr=temperature:ambient', 'assets'],
      [`attr=temperature:ambient&assets=${ids}`, 'assets'],
      [`attr=temperature:ambient&assets=${city(1)}&site=multi`, 'assets'],
      [`attr=temperature:ambient&assets=${city(1)},,${city(2)}`, 'assets'],
      [`attr=temperature:ambient&assets=${city(1)}&aggrMethod=avg&aggrPeriod=P1M`, 'aggrPeriod'],
    ] as const) {
      const res = await get(`/datasource/readings?${query}`);
      assert.equal(res.statusCode, 400, `${query} ${res.body}`);
      assert.match(res.json().description, new RegExp(`'${name}'`), query);
    }
  });
});
