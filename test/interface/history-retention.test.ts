import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pruneHistory } from '../../src/services/history-pruning.js';
import { setSiteRetention } from '../../src/storage/repositories/history-retention.js';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const CITY = 'urn:oc:entity:keepall:environment:retention:1';
const SHORT = 'urn:oc:entity:keepshort:environment:retention:1';
const CHURN = 'urn:oc:entity:churn:environment:retention:1';

describeEachStore('retention of raw readings', (platform) => {
  const keepAll = new HistorySite(platform, 'keepall');
  const keepShort = new HistorySite(platform, 'keepshort');
  const churn = new HistorySite(platform, 'churn');
  const get = (url: string) => platform().app.inject({ method: 'GET', url });
  const values = async (asset: string) => {
    const res = await get(`/datasource/${asset}/temperature:ambient/readings?limit=1000`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().readings.map((r: { recvTime: string; attrValue: string }) => [r.recvTime, r.attrValue]);
  };

  before(async () => {
    await keepAll.register();
    await keepShort.register();
    // One reading every 12 hours for 10 days, on each site: values 0 … 19.
    for (const [site, asset] of [[keepAll, CITY], [keepShort, SHORT]] as const) {
      await site.create(asset, temperature('0'), T0);
      for (let i = 1; i < 20; i++) await site.update(asset, temperature(String(i)), T0 + i * 12 * HOUR);
    }
    assert.equal(await setSiteRetention(platform().ctx.store, 'keepshort', '2d'), true);
    await churn.register();
    assert.equal(await setSiteRetention(platform().ctx.store, 'churn', '1d'), true);
  });

  it('a site without retention of its own follows the platform; one with its own loses what expired, exactly', async () => {
    const store = platform().ctx.store;
    // Asked twice, so that the answers are kept: what is dropped must not be served from them.
    const ranged = `/datasource/${SHORT}/temperature:ambient/readings?from=${iso(T0)}&to=${iso(T0 + 20 * DAY)}`;
    for (let i = 0; i < 2; i++) {
      assert.equal((await values(SHORT)).length, 20);
      assert.equal((await get(ranged)).json().readings.length, 20);
    }
    // Now: a day after the last reading; the short site keeps 2 days, so receive times from now - 2d on.
    const now = T0 + 19 * 12 * HOUR + DAY;
    const pruned = await pruneHistory(store, now, { historyRetentionMs: Number.POSITIVE_INFINITY, rollupRetentionMs: Number.POSITIVE_INFINITY });
    // Received before now - 2d = T0 + 8.5 d expire: readings 0 … 16; reading 17, received at exactly the cutoff, stays.
    const cutoff = now - 2 * DAY;
    const kept = Array.from({ length: 20 }, (_, i) => i).filter((i) => T0 + i * 12 * HOUR >= cutoff);
    // Each write kept two readings: the temperature and its TimeInstant.
    assert.equal(pruned.readings, 2 * (20 - kept.length));
    assert.deepEqual(await values(SHORT), kept.map((i) => [iso(T0 + i * 12 * HOUR), `${i}`]));
    assert.deepEqual((await get(ranged)).json().readings.map((r: { attrValue: string }) => r.attrValue), kept.map((i) => `${i}`));
    assert.equal((await values(CITY)).length, 20);
  });

  it('HISTORY_RETENTION applies to the sites without their own; a reading exactly at the cutoff stays', async () => {
    const store = platform().ctx.store;
    const now = T0 + 10 * 12 * HOUR + 5 * DAY;
    // Keeps receive times >= T0 + 10 × 12 h: readings 10 … 19.
    await pruneHistory(store, now, { historyRetentionMs: 5 * DAY, rollupRetentionMs: Number.POSITIVE_INFINITY });
    assert.deepEqual((await values(CITY)).map((r: string[]) => r[1]), ['10', '11', '12', '13', '14', '15', '16', '17', '18', '19']);
  });

  it('a site set to forever keeps everything, whatever the platform says; the change is the site\'s', async () => {
    const store = platform().ctx.store;
    const before = (await values(SHORT)).length;
    assert.equal(await setSiteRetention(store, 'keepshort', 'forever'), true);
    await pruneHistory(store, T0 + 400 * DAY, { historyRetentionMs: DAY, rollupRetentionMs: Number.POSITIVE_INFINITY });
    assert.equal((await values(SHORT)).length, before);
    // The other site follows the platform: everything of it expired.
    assert.deepEqual(await values(CITY), []);
    assert.equal(await setSiteRetention(store, 'no-such-site', '1d'), false);
  });

  it('a range that lost a reading and gained another is read again, not served as it was kept', async () => {
    await churn.create(CHURN, temperature('a'), T0);
    await churn.update(CHURN, temperature('b'), T0 + 12 * HOUR);
    const ranged = `/datasource/${CHURN}/temperature:ambient/readings?from=${iso(T0)}&to=${iso(T0 + 100 * DAY)}`;
    const seen = async () => (await get(ranged)).json().readings.map((r: { attrValue: string }) => r.attrValue);
    for (let i = 0; i < 2; i++) assert.deepEqual(await seen(), ['a', 'b']);
    // 'a' expires, 'c' arrives: the range holds as many readings as before.
    await pruneHistory(platform().ctx.store, T0 + DAY + 1, { historyRetentionMs: Number.POSITIVE_INFINITY, rollupRetentionMs: Number.POSITIVE_INFINITY });
    await churn.update(CHURN, temperature('c'), T0 + DAY + 2);
    assert.deepEqual(await seen(), ['b', 'c']);
  });
});
