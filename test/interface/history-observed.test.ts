import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { read } from '../helpers/federation.js';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const ASSET = 'urn:oc:entity:backfill:environment:observed:1';

describeEachStore('history by observation time', (platform) => {
  const site = new HistorySite(platform, 'backfill');
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });

  before(async () => {
    await site.register();
    await site.create(ASSET, temperature('10.0'), T0);
    await site.update(ASSET, temperature('12.0'), T0 + 2 * MIN);
    // Buffered while the site was offline: observed a minute after the create, received last.
    await site.update(ASSET, temperature('11.0'), T0 + 3 * MIN, T0 + MIN);
  });

  it('a late reading enters history at its own time; the current state does not move back', async () => {
    const p = platform();
    const res = await read(p, await p.clientToken('ocsite-backfill'), ASSET);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()['temperature:ambient'].value, '12.0');
    assert.equal(res.json().TimeInstant.value, iso(T0 + 2 * MIN));

    const byReceipt = await get(`/datasource/${ASSET}/temperature:ambient/readings`);
    assert.equal(byReceipt.statusCode, 200, byReceipt.body);
    assert.deepEqual(byReceipt.json().readings.map((r: { recvTime: string; attrValue: string }) => [r.recvTime, r.attrValue]),
      [[iso(T0), '10.0'], [iso(T0 + 2 * MIN), '12.0'], [iso(T0 + 3 * MIN), '11.0']]);
    assert.equal('observedAt' in byReceipt.json().readings[0], false);

    const byObservation = await get(`/datasource/${ASSET}/temperature:ambient/readings?timeIndex=observed`);
    assert.equal(byObservation.statusCode, 200, byObservation.body);
    assert.deepEqual(byObservation.json().readings, [
      { recvTime: iso(T0), observedAt: iso(T0), attrName: 'temperature:ambient', attrType: 'urn:oc:attributeType:temperature:ambient', attrValue: '10.0' },
      { recvTime: iso(T0 + 3 * MIN), observedAt: iso(T0 + MIN), attrName: 'temperature:ambient', attrType: 'urn:oc:attributeType:temperature:ambient', attrValue: '11.0' },
      { recvTime: iso(T0 + 2 * MIN), observedAt: iso(T0 + 2 * MIN), attrName: 'temperature:ambient', attrType: 'urn:oc:attributeType:temperature:ambient', attrValue: '12.0' },
    ]);
  });

  it('from/to, lastN and the whole asset follow the observation time when asked', async () => {
    const range = `from=${iso(T0 + MIN)}&to=${iso(T0 + MIN)}`;
    const observed = await get(`/datasource/${ASSET}/temperature:ambient/readings?timeIndex=observed&${range}`);
    assert.deepEqual(observed.json().readings.map((r: { attrValue: string }) => r.attrValue), ['11.0']);
    const received = await get(`/datasource/${ASSET}/temperature:ambient/readings?${range}`);
    assert.deepEqual(received.json().readings, []);

    const newest = await get(`/datasource/${ASSET}/temperature:ambient/readings?timeIndex=observed&lastN=2`);
    assert.deepEqual(newest.json().readings.map((r: { attrValue: string }) => r.attrValue), ['11.0', '12.0']);

    const whole = await get(`/datasource/${ASSET}/readings?timeIndex=observed`);
    const temps = whole.json().readings.filter((r: { attrName: string }) => r.attrName === 'temperature:ambient');
    assert.deepEqual(temps.map((r: { observedAt: string }) => r.observedAt), [iso(T0), iso(T0 + MIN), iso(T0 + 2 * MIN)]);

    const csv = await get(`/datasource/${ASSET}/temperature:ambient/readings?timeIndex=observed&lastN=1`, { accept: 'text/csv' });
    assert.equal(csv.body, `recvTime,observedAt,attrName,attrType,attrValue\r\n${iso(T0 + 2 * MIN)},${iso(T0 + 2 * MIN)},temperature:ambient,urn:oc:attributeType:temperature:ambient,12.0\r\n`);
  });

  it('aggregates bucket by observation time when asked', async () => {
    const q = `/datasource/${ASSET}/temperature:ambient/readings?aggrMethod=count&aggrPeriod=minute`;
    const byReceipt = await get(q);
    assert.deepEqual(byReceipt.json().aggregates.map((b: { start: string }) => b.start), [iso(T0), iso(T0 + 2 * MIN), iso(T0 + 3 * MIN)]);
    const byObservation = await get(`${q}&timeIndex=observed`);
    assert.deepEqual(byObservation.json().aggregates.map((b: { start: string }) => b.start), [iso(T0), iso(T0 + MIN), iso(T0 + 2 * MIN)]);
  });

  it('an unknown timeIndex is a 400 naming it', async () => {
    const res = await get(`/datasource/${ASSET}/readings?timeIndex=sent`);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().description, /timeIndex/);
  });

  it('a TimeInstant further in the future than CLOCK_SKEW (5m) is a 400 naming it; within it is accepted', async () => {
    const now = T0 + 10 * MIN;
    const refused = await site.update(ASSET, temperature('99.0'), now, now + 5 * MIN + 1, 400);
    assert.equal(refused.json().error, 'BadRequest');
    assert.match(refused.json().description, /TimeInstant/);
    assert.match(refused.json().description, /future/);
    const created = await site.create('urn:oc:entity:backfill:environment:observed:2', temperature('1'), now, now + 6 * MIN, 400);
    assert.match(created.json().description, /TimeInstant/);
    await site.update(ASSET, temperature('13.0'), now, now + 5 * MIN);
    const values = await get(`/datasource/${ASSET}/temperature:ambient/readings?values=true`);
    assert.equal(values.json().includes('99.0'), false);
  });

  it('a range of more readings than its answers are kept for is read again each time: a late reading shows at once', async () => {
    const id = 'urn:oc:entity:backfill:environment:observed:many';
    await site.create(id, temperature('1'), T0 + 20 * MIN);
    for (let k = 1; k < 5; k++) await site.update(id, temperature(`${k + 1}`), T0 + (20 + k) * MIN);
    // The first of five by observation time: more than twice the page, so no answer is kept.
    const first = async () => (await get(`/datasource/${id}/temperature:ambient/readings?timeIndex=observed&from=${iso(T0)}&to=${iso(T0 + HOUR)}&limit=1&values=true`)).json();
    for (let i = 0; i < 3; i++) assert.deepEqual(await first(), ['1']);
    // Observed before the others, received last.
    await site.update(id, temperature('0'), T0 + 30 * MIN, T0 + 15 * MIN);
    for (let i = 0; i < 2; i++) assert.deepEqual(await first(), ['0']);
  });
});
