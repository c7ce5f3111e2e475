import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pruneHistory } from '../../src/services/history-pruning.js';
import { exportPages } from '../../src/storage/repositories/reading-export.js';
import { packReadings, setSiteRetention } from '../../src/storage/repositories/history-retention.js';
import { findHistoryAsset } from '../../src/storage/repositories/readings.js';
import { HistorySite, temperature } from '../helpers/history-site.js';
import { describeEachStore } from '../helpers/platform.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const SITE = 'packing';
const A = 'urn:oc:entity:packing:environment:blocks:1';
const B = 'urn:oc:entity:packing:environment:blocks:2';
const FOREVER = { historyRetentionMs: Number.POSITIVE_INFINITY, rollupRetentionMs: Number.POSITIVE_INFINITY };
/** Updates of A: every 20 minutes for three and a half days. */
const UPDATES = 252;

/** A's temperature at update i: decimals as sent, a few texts among them. */
const valueOf = (i: number): string => (i % 37 === 5 ? `a "text", with\nlines ${i}` : `${(i % 13) + 0.5}0`);

/**
 * Every answer of the history, read again after the store packed the
 * readings of the days that ended (PostgreSQL's blocks; SQLite keeps rows):
 * byte for byte the same, ranges cut inside blocks, keys past them, the
 * newest N across blocks and rows, readings by observation time, aggregates
 * of raw readings and of rollups, exports page by page.
 */
describeEachStore('packed history', (platform) => {
  const site = new HistorySite(platform, SITE);
  const get = (url: string, headers: Record<string, string> = {}) => platform().app.inject({ method: 'GET', url, headers });
  /** Each URL with a range asks one that ends `salt` ms later (no reading there): never an answer kept from before. */
  const urls = (salt: number): string[] => {
    const to = (ms: number) => iso(ms + salt);
    const one = `/datasource/${A}/temperature:ambient`;
    return [
      `${one}/readings?limit=1000`,
      `${one}/readings?limit=50&offset=120`,
      `${one}/readings?lastN=200`,
      `${one}/readings?lastN=3`,
      `${one}/readings?from=${iso(T0 + DAY - 3 * HOUR)}&to=${to(T0 + 2 * DAY + 5 * HOUR + 7 * MIN)}&limit=1000`,
      `${one}/readings?from=${iso(T0 + DAY - 3 * HOUR)}&to=${to(T0 + 3 * DAY)}&lastN=40`,
      `${one}/readings?timeIndex=observed&limit=1000`,
      `${one}/readings?timeIndex=observed&lastN=30`,
      `${one}/readings?timeIndex=observed&from=${iso(T0 + 10 * HOUR)}&to=${to(T0 + 30 * HOUR + 7 * MIN)}`,
      `${one}/readings?values=true&limit=1000`,
      `${one}/readings?aggrMethod=avg,min,max,sum,count&aggrPeriod=PT15M&limit=1000`,
      `${one}/readings?aggrMethod=avg,min,max&aggrPeriod=PT1H&from=${iso(T0)}&to=${to(T0 + 5 * DAY + 7 * MIN)}&limit=1000`,
      `${one}/readings?aggrMethod=max&aggrPeriod=P1D`,
      `${one}/readings?aggrMethod=avg&aggrPeriod=PT1H&timeIndex=observed&limit=1000`,
      `/datasource/${A}/readings?limit=1000`,
      `/datasource/${A}/readings?limit=100&offset=333`,
      `/datasource/${A}/readings?lastN=77`,
      `/datasource/readings?attr=temperature:ambient&assets=${A},${B}&from=${iso(T0)}&to=${to(T0 + 4 * DAY + 7 * MIN)}&limit=1000`,
      `/datasource/readings?attr=temperature:ambient&assets=${A},${B}&aggrMethod=avg&aggrPeriod=PT6H`,
      `/datasource/${A}/export`,
      `/datasource/${A}/export?attr=temperature:ambient&from=${iso(T0 + 2 * HOUR)}&to=${to(T0 + 3 * DAY + 7 * MIN)}`,
      `/datasource/${B}/export?from=${iso(T0 + DAY + 5 * HOUR + 1)}&to=${to(T0 + 3 * DAY + 2 * HOUR)}`,
    ];
  };
  const answers = async (salt: number) => Promise.all(urls(salt).map(async (url) => {
    const res = await get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.body;
  }));
  const csv = async () => (await get(`/datasource/${A}/export`, { accept: 'text/csv' })).body;
  const pages = async (batch: number) => {
    const store = platform().ctx.store;
    const asset = await findHistoryAsset(store, A);
    assert.ok(asset);
    const out: string[] = [];
    for await (const page of exportPages(store, { assetSeq: asset.seq, attrName: undefined, range: undefined, timeIndex: 'received' }, (p) => p.map((r) => `${r.recvTime}/${r.seq}/${r.attrName}/${r.attrValue}`), batch)) out.push(...page);
    return out;
  };

  let unpacked: { answers: string[]; csv: string; pages: string[] };

  before(async () => {
    await site.register();
    await site.create(A, temperature('1.00'), T0 + 7 * MIN);
    await site.create(B, temperature('100'), T0 + 8 * MIN);
    for (let i = 1; i <= UPDATES; i++) {
      const at = T0 + 7 * MIN + i * 20 * MIN;
      // Every ninth observed two hours before it was received (a backlog pushed late); the rest a second before.
      const observed = i % 9 === 0 ? at - 2 * HOUR : at - 1000;
      await site.update(A, temperature(valueOf(i)), at, observed);
      if (i % 4 === 0) await site.update(B, { ...temperature(String(i)), humidity: { type: 'Number', value: i / 4 } }, at + 1, at + 1);
    }
    unpacked = { answers: await answers(0), csv: await csv(), pages: await pages(7) };
  });

  it('packing the days that ended changes no answer', async () => {
    const store = platform().ctx.store;
    const packs = store.dialect.readings.blocks !== undefined;
    // First in pieces: a day of more readings than a write packs, then whole days up to a write's worth.
    const pieces = [await packReadings(store, T0 + DAY, () => false, 50), await packReadings(store, T0 + 3 * DAY, () => false, 100)];
    assert.deepEqual(pieces.map((n) => n > 0), [packs, packs]);
    assert.deepEqual(await answers(1), unpacked.answers);
    // The last day (T0 + 3 d on) is packed once `now` is two days on.
    const now = T0 + 5 * DAY;
    const pruned = await pruneHistory(store, now, FOREVER);
    // Where the store packs, the readings received before the day before `now` that were on time; elsewhere none.
    assert.equal(pruned.packed > 0, packs);
    assert.deepEqual(await answers(2), unpacked.answers);
    assert.equal(await csv(), unpacked.csv);
    assert.deepEqual(await pages(7), unpacked.pages);
    assert.deepEqual(await pages(1000), unpacked.pages);
    // Packing again finds nothing left to pack.
    assert.equal((await pruneHistory(store, now, FOREVER)).packed, 0);
  });

  it('writes after packing join the packed history in order', async () => {
    const at = T0 + 3 * DAY + 13 * HOUR;
    await site.update(A, temperature('77.70'), at, at - 1000);
    const res = await get(`/datasource/${A}/temperature:ambient/readings?lastN=2`);
    assert.deepEqual(res.json().readings.map((r: { attrValue: string }) => r.attrValue), [valueOf(UPDATES), '77.70']);
    const all = await get(`/datasource/${A}/temperature:ambient/readings?limit=1000`);
    assert.equal(all.json().readings.length, UPDATES + 2);
  });

  it('retention drops packed readings exactly, cutting inside a block', async () => {
    const store = platform().ctx.store;
    const whole = (await get(`/datasource/${A}/temperature:ambient/readings?limit=1000`)).json().readings as Array<{ recvTime: string }>;
    assert.equal(await setSiteRetention(store, SITE, '2d'), true);
    const now = T0 + 3 * DAY + 14 * HOUR + 30 * MIN;
    const cutoff = now - 2 * DAY;
    await pruneHistory(store, now, FOREVER);
    const kept = (await get(`/datasource/${A}/temperature:ambient/readings?limit=1000`)).json().readings as Array<{ recvTime: string }>;
    assert.deepEqual(kept, whole.filter((r) => Date.parse(r.recvTime) >= cutoff));
    assert.ok(kept.length > 0 && kept.length < whole.length);
    // The observed index keeps the same readings, off-time ones included.
    const observed = (await get(`/datasource/${A}/temperature:ambient/readings?timeIndex=observed&limit=1000`)).json().readings as Array<{ recvTime: string }>;
    assert.deepEqual(observed.map((r) => r.recvTime).sort(), kept.map((r) => r.recvTime).sort());
    // Hours and days of the rollups outlive the readings.
    const daily = (await get(`/datasource/${A}/temperature:ambient/readings?aggrMethod=count&aggrPeriod=P1D`)).json().aggregates as Array<{ start: string }>;
    assert.equal(daily[0]?.start, iso(T0));
  });
});
