import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

/**
 * History by observation time when readings on time (received within five
 * minutes of their TimeInstant, found through the receive-time order) and
 * readings pushed long after (found through the index of such readings) mix:
 * every way of reading it sees one order.
 */

const T0 = Date.parse('2026-04-01T08:00:00.000Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const ASSET = 'urn:oc:entity:offtime:environment:mixed:1';
const ATTR = 'temperature:ambient';

/** [received, observed, value], in the order they are written: on time 1 to 5, late 101 and 102, 105 exactly five minutes late. */
const WRITES: Array<[number, number, string]> = [
  [T0, T0 - MIN / 2, '1'],
  [T0 + 10 * MIN, T0 + 10 * MIN - MIN / 2, '2'],
  [T0 + 20 * MIN, T0 + 20 * MIN - MIN / 2, '3'],
  [T0 + 30 * MIN, T0 + 30 * MIN - MIN / 2, '4'],
  // A backlog pushed 35 and 26 minutes late, then one on time again, then one exactly five minutes late (on time still).
  [T0 + 40 * MIN, T0 + 5 * MIN, '101'],
  [T0 + 41 * MIN, T0 + 15 * MIN, '102'],
  [T0 + 50 * MIN, T0 + 50 * MIN, '5'],
  [T0 + 55 * MIN, T0 + 50 * MIN, '105'],
];
const BY_OBSERVATION = [...WRITES].map((w, i) => ({ w, i })).sort((a, b) => a.w[1] - b.w[1] || a.i - b.i).map(({ w }) => w[2]);

describeEachStore('history by observation time, readings on time and late mixed', (platform) => {
  const site = new HistorySite(platform, 'offtime');
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });
  const values = async (query: string): Promise<string[]> => {
    const res = await get(`/datasource/${ASSET}/${ATTR}/readings?timeIndex=observed&${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().readings.map((r: { attrValue: string }) => r.attrValue);
  };

  before(async () => {
    await site.register();
    const [first, ...rest] = WRITES;
    await site.create(ASSET, temperature(first![2]), first![0], first![1]);
    for (const [received, observed, value] of rest) await site.update(ASSET, temperature(value), received, observed);
  });

  it('the whole history, every page size, and the newest N come in observation order', async () => {
    assert.deepEqual(await values('limit=100'), BY_OBSERVATION);
    for (const limit of [1, 2, 3]) {
      const paged: string[] = [];
      for (let offset = 0; offset < WRITES.length; offset += limit) paged.push(...await values(`limit=${limit}&offset=${offset}`));
      assert.deepEqual(paged, BY_OBSERVATION, `pages of ${limit}`);
    }
    for (const n of [1, 2, 4, 8]) assert.deepEqual(await values(`lastN=${n}`), BY_OBSERVATION.slice(-n), `lastN=${n}`);
  });

  it('a range by observation time holds late and on-time readings alike', async () => {
    assert.deepEqual(await values(`from=${iso(T0 + 4 * MIN)}&to=${iso(T0 + 16 * MIN)}`), ['101', '2', '102']);
    assert.deepEqual(await values(`from=${iso(T0 + 4 * MIN)}&to=${iso(T0 + 16 * MIN)}&limit=1&offset=1`), ['2']);
    assert.deepEqual(await values(`from=${iso(T0 + 50 * MIN)}&to=${iso(T0 + 50 * MIN)}`), ['5', '105']);
    // By receive time the same range holds only what arrived in it.
    const received = await get(`/datasource/${ASSET}/${ATTR}/readings?from=${iso(T0 + 4 * MIN)}&to=${iso(T0 + 16 * MIN)}`);
    assert.deepEqual(received.json().readings.map((r: { attrValue: string }) => r.attrValue), ['2']);
  });

  it('the asset\'s merged history and its export follow the same order', async () => {
    const merged = await get(`/datasource/${ASSET}/readings?timeIndex=observed&limit=1000`);
    assert.deepEqual(merged.json().readings.filter((r: { attrName: string }) => r.attrName === ATTR).map((r: { attrValue: string }) => r.attrValue), BY_OBSERVATION);
    const exported = await get(`/datasource/${ASSET}/export?timeIndex=observed&attr=${ATTR}`);
    assert.equal(exported.statusCode, 200, exported.body);
    assert.deepEqual(exported.body.trim().split('\n').map((line) => JSON.parse(line).attrValue), BY_OBSERVATION);
  });

  it('counts by observation time bucket late readings at their own time', async () => {
    const res = await get(`/datasource/${ASSET}/${ATTR}/readings?timeIndex=observed&aggrMethod=count&aggrPeriod=PT10M`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().aggregates.map((b: { start: string; value: number }) => [b.start, b.value]), [
      [iso(T0 - 10 * MIN), 1], [iso(T0), 2], [iso(T0 + 10 * MIN), 2], [iso(T0 + 20 * MIN), 1], [iso(T0 + 50 * MIN), 2],
    ]);
  });

  it('any page, newest N or range of a random mix reads what sorting the readings by observation time gives', async () => {
    const id = 'urn:oc:entity:offtime:environment:random:1';
    // Sixty readings three minutes apart, about half of them pushed 6 to 120 minutes late, the others 0 to 60 s after their observation.
    const [lags] = fc.sample(fc.array(fc.oneof(fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 6 * MIN, max: 120 * MIN })), { minLength: 60, maxLength: 60 }), { seed: 2026, numRuns: 1 });
    const start = T0 + 200 * MIN;
    const readings = lags!.map((lag, i) => ({ received: start + 3 * MIN * i, observed: start + 3 * MIN * i - lag, value: String(i) }));
    await site.create(id, temperature(readings[0]!.value), readings[0]!.received, readings[0]!.observed);
    for (const r of readings.slice(1)) await site.update(id, temperature(r.value), r.received, r.observed);
    const sorted = [...readings].sort((a, b) => a.observed - b.observed || Number(a.value) - Number(b.value));
    const read = async (query: string) => {
      const res = await get(`/datasource/${id}/${ATTR}/readings?timeIndex=observed&${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return res.json().readings.map((r: { attrValue: string }) => r.attrValue);
    };
    const queries = fc.sample(fc.record({ from: fc.integer({ min: 0, max: 59 }), span: fc.integer({ min: 0, max: 60 }), limit: fc.integer({ min: 1, max: 12 }), offset: fc.integer({ min: 0, max: 20 }) }), { seed: 7, numRuns: 25 });
    for (const q of queries) {
      const from = sorted[q.from]!.observed;
      const to = sorted[Math.min(59, q.from + q.span)]!.observed;
      const inRange = sorted.filter((r) => r.observed >= from && r.observed <= to).map((r) => r.value);
      assert.deepEqual(await read(`from=${iso(from)}&to=${iso(to)}&limit=${q.limit}&offset=${q.offset}`), inRange.slice(q.offset, q.offset + q.limit), JSON.stringify(q));
      assert.deepEqual(await read(`lastN=${q.limit}`), sorted.slice(-q.limit).map((r) => r.value), `lastN=${q.limit}`);
    }
  });
});
