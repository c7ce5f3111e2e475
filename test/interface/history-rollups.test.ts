import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { aggregateBucket, type AggregationMethod } from '../../src/domain/aggregation.js';
import { pruneHistory } from '../../src/services/history-pruning.js';
import { buildEndedDays } from '../../src/storage/repositories/reading-rollups.js';
import { aggregateRawReadings, findHistoryAsset } from '../../src/storage/repositories/readings.js';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-02-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const METHODS: AggregationMethod[] = ['avg', 'min', 'max', 'sum'];
const PERIODS: Array<[string, number]> = [['hour', HOUR], ['PT3H', 3 * HOUR], ['PT5H', 5 * HOUR], ['P1D', DAY], ['day', DAY], ['P2D', 2 * DAY]];
const FOREVER = Number.POSITIVE_INFINITY;

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Series {
  asset: string;
  /** Binary fractions: sums are exact in any order, so every method must be equal to the last bit. */
  exact: boolean;
  times: number[];
  values: string[];
}

/** Readings at random times over about four days, several in some hours, none in others, a few not numbers. */
function randomSeries(next: () => number, asset: string, exact: boolean): Series {
  const times: number[] = [];
  const values: string[] = [];
  let at = T0 + Math.floor(next() * HOUR);
  for (let i = 0; i < 90; i++) {
    times.push(at);
    const r = next();
    if (r < 0.08) values.push(r < 0.04 ? 'n/a' : 'true');
    else if (exact) values.push(String(Math.floor((next() - 0.5) * 2 ** 18) / 8));
    else values.push((next() * 2000 - 1000).toFixed(1 + Math.floor(next() * 6)));
    // Mostly minutes apart, sometimes hours, sometimes the same millisecond.
    const gap = next();
    at += gap < 0.1 ? 0 : gap < 0.85 ? Math.floor(next() * 40 * MIN) : Math.floor(next() * 9 * HOUR);
  }
  return { asset, exact, times, values };
}

describeEachStore('rollups answer aggregations of whole hours exactly as the raw readings', (platform) => {
  const site = new HistorySite(platform, 'rollups');
  const next = random(22);
  const series = [
    randomSeries(next, 'urn:oc:entity:rollups:environment:exact:1', true),
    randomSeries(next, 'urn:oc:entity:rollups:environment:exact:2', true),
    randomSeries(next, 'urn:oc:entity:rollups:environment:decimal:1', false),
  ];
  const ranges: Array<{ from: number; to: number } | undefined> = [
    undefined,
    { from: T0, to: T0 + 3 * DAY - 1 },
    { from: T0 + 2 * HOUR, to: T0 + 2 * DAY + 5 * HOUR - 1 },
  ];
  for (let i = 0; i < 6; i++) {
    const from = T0 + Math.floor(next() * 2 * DAY);
    ranges.push({ from, to: from + Math.floor(next() * 2 * DAY) });
  }
  const query = (s: Series, period: string, range: { from: number; to: number } | undefined) =>
    `/datasource/${s.asset}/temperature:ambient/readings?aggrMethod=${METHODS.join(',')}&aggrPeriod=${period}&limit=1000`
    + (range ? `&from=${iso(range.from)}&to=${iso(range.to)}` : '');
  const answer = async (url: string) => {
    const res = await platform().app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().aggregates as Array<Record<string, number | string>>;
  };
  /** What the raw readings give, as the datasource renders it. */
  const raw = async (s: Series, periodMs: number, range: { from: number; to: number } | undefined) => {
    const asset = await findHistoryAsset(platform().ctx.store, s.asset);
    const stats = await aggregateRawReadings(platform().ctx.store, { assetSeq: asset!.seq, attrName: 'temperature:ambient', range }, periodMs, { limit: 1000, offset: 0 });
    return stats.map((b) => aggregateBucket(b, METHODS)).map((b) => ({ start: iso(b.start), count: b.count, ...b.values }));
  };
  const same = (s: Series, got: Array<Record<string, number | string>>, want: Array<Record<string, number | string>>, what: string) => {
    if (s.exact) return assert.deepEqual(got, want, what);
    assert.deepEqual(got.map((b) => [b.start, b.count, b.min, b.max]), want.map((b) => [b.start, b.count, b.min, b.max]), what);
    // Decimal fractions: a sum added in another order may differ in its last bits (docs/decisions.md).
    got.forEach((b, i) => {
      for (const m of ['sum', 'avg']) {
        const [x, y] = [b[m] as number, want[i]![m] as number];
        assert.ok(Math.abs(x - y) <= 1e-12 * Math.max(1, Math.abs(y)), `${what} ${m}: ${x} vs ${y}`);
      }
    });
  };
  const remembered = new Map<string, Array<Record<string, number | string>>>();

  before(async () => {
    await site.register();
    // The series' readings interleaved in time, as several sensors write them.
    const writes = series.flatMap((s) => s.times.map((t, i) => ({ s, t, i }))).sort((a, b) => a.t - b.t);
    for (const { s, t, i } of writes) {
      if (i === 0) await site.create(s.asset, temperature(s.values[0]), t);
      else await site.update(s.asset, temperature(s.values[i]), t);
    }
  });

  it('every whole-hour period over any range gives what the raw readings give (avg, min, max, sum, count)', async () => {
    for (const s of series) {
      for (const [period, periodMs] of PERIODS) {
        for (const range of ranges) {
          const url = query(s, period, range);
          const got = await answer(url);
          same(s, got, await raw(s, periodMs, range), url);
          remembered.set(url, got);
        }
      }
    }
    assert.ok([...remembered.values()].some((buckets) => buckets.length > 3));
  });

  it('a page of buckets (limit, offset) is its slice of the whole answer, also when the range cuts an hour at either end', async () => {
    const s = series[0]!;
    for (const period of ['hour', 'PT5H']) {
      for (const range of ranges.slice(2, 5)) {
        const url = query(s, period, range);
        const whole = await answer(url);
        for (const limit of [2, 5]) {
          const paged: Array<Record<string, number | string>> = [];
          for (let offset = 0; offset < whole.length; offset += limit) paged.push(...await answer(url.replace('limit=1000', `limit=${limit}&offset=${offset}`)));
          assert.deepEqual(paged, whole, `${url} in pages of ${limit}`);
        }
      }
    }
  });

  it('each day is built from its hours once it has ended, answering as before; a reading received later for a built day still counts', async () => {
    const store = platform().ctx.store;
    const late: Series = { asset: 'urn:oc:entity:rollups:environment:late:1', exact: true, times: [T0 + 3 * HOUR, T0 + DAY + 4 * HOUR], values: ['1.5', '2.25'] };
    await site.create(late.asset, temperature(late.values[0]), late.times[0]!);
    await site.update(late.asset, temperature(late.values[1]), late.times[1]!);
    // A day is built ten minutes after it ends, not sooner; then the days up to the one that ended.
    assert.equal(await buildEndedDays(store, T0 + DAY + 9 * MIN), 0);
    assert.equal(await buildEndedDays(store, T0 + DAY + 10 * MIN), 1);
    assert.equal(await buildEndedDays(store, T0 + 3 * DAY + 10 * MIN), 2);
    const days = await store.read.selectFrom('reading_rollups').select('bucket').distinct().where('period_ms', '=', DAY).orderBy('bucket').execute();
    assert.deepEqual(days.map((d) => Number(d.bucket)), [T0, T0 + DAY, T0 + 2 * DAY]);
    for (const s of series) {
      for (const [period] of PERIODS) {
        for (const range of ranges) {
          const url = query(s, period, range);
          assert.deepEqual(await answer(url), remembered.get(url), url);
        }
      }
    }
    // Received after its day was built (a clock set back): it adds to the day as it is written.
    await site.update(late.asset, temperature('-4.75'), T0 + 5 * HOUR);
    for (const [period, periodMs] of PERIODS) {
      for (const range of ranges.slice(0, 3)) same(late, await answer(query(late, period, range)), await raw(late, periodMs, range), `${late.asset} ${period}`);
    }
    const first = await answer(query(late, 'day', undefined));
    assert.deepEqual(first.map((b) => b.count), [2, 1]);
  });

  it('the rollups stay when the raw readings expire: whole hours and days are answered as before', async () => {
    const store = platform().ctx.store;
    const pruned = await pruneHistory(store, T0 + 30 * DAY, { historyRetentionMs: DAY, rollupRetentionMs: FOREVER });
    assert.ok(pruned.readings > 0);
    assert.equal(pruned.rollups, 0);
    for (const s of series) {
      const all = await platform().app.inject({ method: 'GET', url: `/datasource/${s.asset}/temperature:ambient/readings?limit=10` });
      assert.deepEqual(all.json().readings, []);
      for (const [period] of PERIODS) {
        for (const range of ranges.slice(0, 2)) {
          const url = query(s, period, range);
          assert.deepEqual(await answer(url), remembered.get(url), url);
        }
      }
    }
  });

  it('ROLLUP_RETENTION drops the rollups of the hours and days that ended longer ago than it', async () => {
    const store = platform().ctx.store;
    // Keeps the hours that ended after T0 + 2d: the hourly answer starts there, the daily one at the day of T0 + 2d.
    const now = T0 + 32 * DAY;
    const pruned = await pruneHistory(store, now, { historyRetentionMs: DAY, rollupRetentionMs: 30 * DAY });
    assert.ok(pruned.rollups > 0);
    for (const s of series) {
      const hourly = await answer(query(s, 'hour', undefined));
      assert.ok(hourly.every((b) => Date.parse(b.start as string) + HOUR > T0 + 2 * DAY));
      const before = remembered.get(query(s, 'hour', undefined))!;
      assert.deepEqual(hourly, before.filter((b) => Date.parse(b.start as string) + HOUR > T0 + 2 * DAY));
      const daily = await answer(query(s, 'day', undefined));
      assert.deepEqual(daily, remembered.get(query(s, 'day', undefined))!.filter((b) => Date.parse(b.start as string) + DAY > T0 + 2 * DAY));
    }
  });
});
