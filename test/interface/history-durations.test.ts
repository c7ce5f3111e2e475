import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

const MIN = 60_000;
// A multiple of 7 minutes since the epoch, so that the PT7M buckets below start on it.
const T0 = Math.ceil(Date.parse('2026-03-02T00:00:00.000Z') / (7 * MIN)) * 7 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
const ASSET = 'urn:oc:entity:durations:environment:buckets:1';

describeEachStore('aggregation with ISO 8601 periods and several methods', (platform) => {
  const site = new HistorySite(platform, 'durations');
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });
  const readings = (query: string) => get(`/datasource/${ASSET}/temperature:ambient/readings?${query}`);

  before(async () => {
    await site.register();
    // One reading a minute for 20 minutes: values 0, 1, …, 19.
    await site.create(ASSET, temperature('0'), T0);
    for (let i = 1; i < 20; i++) await site.update(ASSET, temperature(String(i)), T0 + i * MIN);
  });

  it('PT7M buckets start on the epoch-aligned multiples of seven minutes', async () => {
    const res = await readings('aggrMethod=sum&aggrPeriod=PT7M');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().aggregates, [
      { start: iso(T0), count: 7, value: 0 + 1 + 2 + 3 + 4 + 5 + 6 },
      { start: iso(T0 + 7 * MIN), count: 7, value: 7 + 8 + 9 + 10 + 11 + 12 + 13 },
      { start: iso(T0 + 14 * MIN), count: 6, value: 14 + 15 + 16 + 17 + 18 + 19 },
    ]);
  });

  it('several methods give one field per method, in JSON and CSV', async () => {
    const res = await readings('aggrMethod=avg,min,max&aggrPeriod=PT15M');
    assert.equal(res.statusCode, 200, res.body);
    const start = Math.floor(T0 / (15 * MIN)) * 15 * MIN;
    const first = Array.from({ length: 20 }, (_, i) => i).filter((i) => T0 + i * MIN < start + 15 * MIN);
    const rest = Array.from({ length: 20 }, (_, i) => i).filter((i) => T0 + i * MIN >= start + 15 * MIN);
    const expect = (values: number[], at: number) => ({
      start: iso(at), count: values.length, avg: values.reduce((a, b) => a + b, 0) / values.length, min: Math.min(...values), max: Math.max(...values),
    });
    assert.deepEqual(res.json().aggregates, [expect(first, start), expect(rest, start + 15 * MIN)]);

    const csv = await get(`/datasource/${ASSET}/temperature:ambient/readings?aggrMethod=min,max&aggrPeriod=P1D`, { accept: 'text/csv' });
    assert.equal(csv.body, `start,count,min,max\r\n${iso(Math.floor(T0 / 86_400_000) * 86_400_000)},20,0,19\r\n`);
  });

  it('P1D, P7D and PT6H cover the whole series in one bucket; the named periods still work', async () => {
    for (const period of ['P1D', 'P7D', 'PT6H', 'day']) {
      const res = await readings(`aggrMethod=count&aggrPeriod=${period}`);
      assert.equal(res.statusCode, 200, res.body);
      const total = res.json().aggregates.reduce((n: number, b: { value: number }) => n + b.value, 0);
      assert.equal(total, 20, period);
    }
  });

  it('a bad period or method is a 400 naming it', async () => {
    for (const [query, name] of [['aggrMethod=avg&aggrPeriod=P1M', 'aggrPeriod'], ['aggrMethod=avg&aggrPeriod=PT0S', 'aggrPeriod'],
      ['aggrMethod=avg,mode&aggrPeriod=PT5M', 'aggrMethod'], ['aggrMethod=avg&aggrPeriod=5m', 'aggrPeriod']] as const) {
      const res = await readings(query);
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.json().description, new RegExp(name), query);
    }
  });
});
