import assert from 'node:assert/strict';
import { it } from 'node:test';
import { demoAssets } from '../../src/demo/city.js';
import { loadDemo, type DemoOptions } from '../../src/demo/loader.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';

/** A small demo (the 45 real entities and a few positions, one day at 4-hour steps) keeps the test quick. */
const SMALL = { days: 1, stepMinutes: 240, maxAssets: 70 } satisfies DemoOptions;
const REAL_ENTITY = 'urn:oc:entity:santander:environmental:fixed:459';

async function tableSizes(p: TestPlatform) {
  const count = async (table: 'assets' | 'readings' | 'asset_attributes' | 'sites') => {
    const row = await p.ctx.store.read.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  };
  return { assets: await count('assets'), readings: await count('readings'), attributes: await count('asset_attributes'), sites: await count('sites') };
}

describeEachStore('demo data set', (platform) => {
  it('loads sites, assets and a history through federation, and says what it loaded', async () => {
    const p = platform();
    const summary = await loadDemo({ ...p.ctx, clock: p.clock }, SMALL);
    assert.deepEqual(summary.refused, []);
    assert.equal(summary.sites, 10);
    assert.equal(summary.assets.total, 70);
    assert.equal(summary.assets.created, 70);
    assert.equal(summary.assets.existing, 0);
    assert.ok(summary.dictionary.assetTypes >= 30 && summary.dictionary.attributeTypes >= 50 && summary.dictionary.units > 0);
    // Every asset reports at every step of its day (7 steps of 4 h, the first a create); a stopped one's day ends when it stopped.
    assert.ok(summary.assets.stopped > 0);
    assert.equal(summary.updates, summary.assets.total * 6);
    assert.ok(Date.parse(summary.to) - Date.parse(summary.from) > 2.5 * 24 * 3_600_000, 'the history reaches back to the day of the earliest stopped sensor');
    const sizes = await tableSizes(p);
    assert.equal(sizes.assets, 70);
    assert.equal(sizes.sites, 10);
    assert.equal(sizes.readings, summary.readings);
  });

  it('keeps the real Santander entity as it was, with a current TimeInstant', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `/discovery/v0/assets/${REAL_ENTITY}` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as Record<string, unknown>;
    assert.equal(JSON.stringify(body).includes('urn:oc:entityType:iotdevice'), true);
  });

  it('shows the history in the datasource, one reading per step, ascending', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `/datasource/${REAL_ENTITY}/temperature:ambient/readings` });
    assert.equal(res.statusCode, 200, res.body);
    const readings = (res.json() as { readings: Array<{ recvTime: string; attrValue: string }> }).readings;
    assert.equal(readings.length, 7);
    const times = readings.map((r) => Date.parse(r.recvTime));
    assert.deepEqual(times, [...times].sort((a, b) => a - b));
    assert.equal(times[times.length - 1]! - times[0]!, 24 * 3_600_000);
    // Written as the real entity wrote them: text with two decimals.
    for (const r of readings.slice(1)) assert.match(r.attrValue, /^-?\d+\.\d{2}$/);
  });

  it('gives a stopped sensor as long a history as the others, ending days before the end', async () => {
    const p = platform();
    const stopped = demoAssets().slice(0, SMALL.maxAssets).find((a) => a.irregularity.stoppedBeforeEnd !== null)!;
    const attr = stopped.signals[0]!.name;
    const res = await p.app.inject({ method: 'GET', url: `/datasource/${encodeURIComponent(stopped.id)}/${encodeURIComponent(attr)}/readings` });
    assert.equal(res.statusCode, 200, res.body);
    const times = (res.json() as { readings: Array<{ recvTime: string }> }).readings.map((r) => Date.parse(r.recvTime));
    assert.equal(times.length, 7);
    assert.equal(times[times.length - 1]! - times[0]!, 24 * 3_600_000);
    assert.ok(p.clock.now() - times[times.length - 1]! > 36 * 3_600_000, 'stopped before the online window');
  });

  it('counts its sites in discovery', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/discovery/v0/assets/sites' });
    assert.equal(res.statusCode, 200, res.body);
    const names = JSON.stringify(res.json());
    assert.match(names, /Santander/);
  });

  it('adds nothing when run again', async () => {
    const p = platform();
    const before = await tableSizes(p);
    const summary = await loadDemo({ ...p.ctx, clock: p.clock }, SMALL);
    assert.deepEqual(summary.refused, []);
    assert.equal(summary.assets.created, 0);
    assert.equal(summary.assets.existing, 70);
    assert.equal(summary.updates, 0);
    assert.equal(summary.readings, 0);
    assert.deepEqual(await tableSizes(p), before);
  });

  it('brings an older demo up to date without repeating a report', async () => {
    const p = platform();
    const before = await tableSizes(p);
    p.clock.advance(8 * 3_600_000);
    const summary = await loadDemo({ ...p.ctx, clock: p.clock }, SMALL);
    assert.equal(summary.assets.created, 0);
    // Two new 4-hour steps for every asset; a stopped one's reach the time it stopped, still days before the end (offline).
    assert.ok(summary.assets.stopped > 0 && summary.assets.featured + summary.assets.stopped === 70);
    assert.equal(summary.updates, summary.assets.total * 2);
    const after = await tableSizes(p);
    assert.equal(after.assets, before.assets);
    assert.equal(after.readings, before.readings + summary.readings);
    const res = await p.app.inject({ method: 'GET', url: `/datasource/${REAL_ENTITY}/temperature:ambient/readings` });
    const times = (res.json() as { readings: Array<{ recvTime: string }> }).readings.map((r) => Date.parse(r.recvTime));
    assert.equal(times.length, 9);
    assert.equal(new Set(times).size, times.length);
  });
});
