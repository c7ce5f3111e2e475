import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { activityHour, onlineSince } from '../../src/domain/activity.js';
import { deleteAsset, pushAsset, seedDiscoveryDataset, type Dataset, type SeededAsset } from '../helpers/discovery-dataset.js';
import { enc, fails, ok, sorted } from '../helpers/discovery-expect.js';
import { describeEachStore } from '../helpers/platform.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';

const BASE = '/discovery/v0';
const DAY = 86_400_000;

interface Count { assets: number; online: number; offline: number }

describeEachStore('discovery sites, services, providers and types', (platform) => {
  let data: Dataset;
  /** The live assets as the tests changed them. */
  let live: SeededAsset[];
  before(async () => {
    data = await seedDiscoveryDataset(platform());
    live = [...data.assets];
  });
  const p = () => platform();

  /** Counts by recounting every live asset (what the counters must agree with). */
  const recount = (assets: SeededAsset[]): Count => {
    const since = onlineSince(p().clock.now(), p().ctx.config.onlineWindowMs);
    const online = assets.filter((a) => activityHour(a.lastReadingAt) >= since).length;
    return { assets: assets.length, online, offline: assets.length - online };
  };

  async function checkSites(): Promise<void> {
    const got = await ok(p(), `${BASE}/assets/sites`);
    const ids = ['aarhus', 'experimenters', 'london', 'patras', 'santander'];
    assert.deepEqual(got.body.map((s: { id: string }) => s.id).filter((id: string) => id !== 'velenje'), ids);
    for (const site of got.body) assert.deepEqual(site.attributes, recount(live.filter((a) => a.site === site.id)), site.id);
  }

  async function checkCategories(kind: 'service' | 'provider'): Promise<void> {
    const city = live.filter((a) => a.site !== 'experimenters' && a[kind] !== null);
    const values = sorted(new Set(city.map((a) => a[kind] as string)));
    const got = await ok(p(), `${BASE}/assets/${kind}s`);
    assert.deepEqual(got.body.map((c: { id: string }) => c.id), values);
    for (const category of got.body) {
      const mine = city.filter((a) => a[kind] === category.id);
      assert.equal(category.type, kind);
      assert.deepEqual(category.attributes, recount(mine));
      const sites = sorted(new Set(mine.map((a) => a.site)));
      assert.deepEqual(category.related.cities.map((c: { id: string }) => c.id), sites);
      for (const c of category.related.cities) assert.deepEqual(c.attributes, recount(mine.filter((a) => a.site === c.id)), `${category.id}@${c.id}`);
    }
  }

  it('lists every site with real counts of assets, online and offline', async () => {
    await checkSites();
    const got = await ok(p(), `${BASE}/assets/sites`);
    const santander = got.body.find((s: { id: string }) => s.id === 'santander');
    assert.deepEqual(santander.context, {
      name: 'Santander',
      position: { latitude: 43.45487, longitude: -3.81289, city: 'Santander', country_code: 'ES', country: 'Spain' },
    });
    assert.equal(santander.type, 'city');
    assert.equal(santander.links.self, 'http://127.0.0.1:8080/discovery/v0/assets/sites/santander');
    const counts = santander.attributes as Count;
    assert.ok(counts.online > 0 && counts.offline > 0, 'the data set has both online and offline assets');
  });

  it('gives one site, and its counts for one asset type', async () => {
    const london = await ok(p(), `${BASE}/assets/sites/london`);
    assert.equal(london.body.context.name, 'London');
    assert.deepEqual(london.body.attributes, recount(live.filter((a) => a.site === 'london')));
    const typed = await ok(p(), `${BASE}/assets/sites/london?type=transportStation`);
    assert.deepEqual(typed.body.attributes, recount(live.filter((a) => a.site === 'london' && a.type === 'urn:oc:entityType:transportStation')));
    const none = await ok(p(), `${BASE}/assets/sites/london?type=urn:oc:entityType:shop`);
    assert.deepEqual(none.body.attributes, { assets: 0, online: 0, offline: 0 });
    await fails(p(), `${BASE}/assets/sites/atlantis`, 404, 'atlantis');
    await fails(p(), `${BASE}/assets/sites/london?type=`, 400, "'type'");
  });

  it('lists services and providers with their counts per city', async () => {
    await checkCategories('service');
    await checkCategories('provider');
  });

  it('gives one service or provider, and 404 for an unknown one', async () => {
    const parking = await ok(p(), `${BASE}/assets/service/parking`);
    assert.deepEqual(parking.body.attributes, recount(live.filter((a) => a.service === 'parking')));
    assert.deepEqual(parking.body.related.cities.map((c: any) => [c.id, c.metadata.name, c.metadata.position]), [['santander', 'Santander', { latitude: 43.45487, longitude: -3.81289 }]]);
    assert.deepEqual((await ok(p(), `${BASE}/assets/services/parking`)).body, parking.body);
    const provider = await ok(p(), `${BASE}/assets/providers/TransportAPI`);
    assert.deepEqual(provider.body.attributes, recount(live.filter((a) => a.provider === 'TransportAPI')));
    await fails(p(), `${BASE}/assets/service/teleportation`, 404, 'teleportation');
    await fails(p(), `${BASE}/assets/providers/nobody`, 404, 'nobody');
    // Experiment assets have no service or provider: their segments are no service.
    await fails(p(), `${BASE}/assets/service/${enc(data.users.experimenter)}`, 404, data.users.experimenter);
  });

  it('moves assets offline as time passes, without any write', async () => {
    p().clock.set(data.now + DAY / 2);
    await checkSites();
    await checkCategories('service');
    p().clock.set(data.now + 3 * DAY);
    const got = await ok(p(), `${BASE}/assets/sites/santander`);
    assert.equal(got.body.attributes.online, 0);
    assert.equal(got.body.attributes.offline, live.filter((a) => a.site === 'santander').length);
    p().clock.set(data.now);
  });

  it('keeps the counts up to date as assets are updated, created and deleted', async () => {
    p().clock.set(data.now + 60_000);
    // An asset offline for days comes back online.
    const old = live.find((a) => a.site === 'santander' && activityHour(a.lastReadingAt) < onlineSince(p().clock.now(), DAY))!;
    const updated = await pushAsset(p(), { ...old, recordedAt: p().clock.now(), attributes: { 'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: 20 } } }, true);
    live[live.indexOf(old)] = { ...old, lastReadingAt: updated.lastReadingAt };
    // A new asset of a new service and a new type.
    const created = await pushAsset(p(), {
      id: 'urn:oc:entity:aarhus:noise:cityprobe:n1', type: 'urn:oc:entityType:noiseProbe', site: 'aarhus', service: 'noise', provider: 'cityprobe',
      group: null, name: 'n1', experimenter: null, experiment: null, latitude: 56.16, longitude: 10.21, recordedAt: p().clock.now(),
      attributes: { location: { type: 'geo:json', value: { type: 'Point', coordinates: [10.21, 56.16] } } },
    });
    live.push(created);
    // An asset is deleted.
    const gone = live.find((a) => a.site === 'london')!;
    await deleteAsset(p(), gone);
    live = live.filter((a) => a !== gone);

    await checkSites();
    await checkCategories('service');
    await checkCategories('provider');
    const noise = await ok(p(), `${BASE}/assets/service/noise`);
    assert.deepEqual(noise.body.attributes, { assets: 1, online: 1, offline: 0 });
    const total = await ok(p(), `${BASE}/assets?per=1`);
    assert.equal(total.headers['x-total-count'], String(live.filter((a) => a.site !== 'experimenters').length));
  });

  it('sees at once what another process commits, even for an answer just given', async () => {
    const before = await ok(p(), `${BASE}/assets/sites`);
    assert.deepEqual((await ok(p(), `${BASE}/assets/sites`)).body, before.body);
    // Another connection on the same database, as the CLI or a second server would be.
    const other = Store.open(p().db.url);
    try {
      await upsertSite(other, { id: 'velenje', name: 'Velenje', type: 'city', latitude: 46.3592, longitude: 15.1103, countryCode: 'SI', country: 'Slovenia', city: 'Velenje', quota: null }, p().clock.now());
    } finally {
      await other.close();
    }
    const after = await ok(p(), `${BASE}/assets/sites`);
    assert.deepEqual(after.body.map((s: { id: string }) => s.id), [...before.body.map((s: { id: string }) => s.id), 'velenje'].sort());
  });

  it('serves the asset-type dictionary, seeded from the reference data', async () => {
    const got = await ok(p(), `${BASE}/types`);
    const types = got.body as Array<{ type: string; description: string }>;
    assert.deepEqual(types.map((t) => t.type), sorted(types.map((t) => t.type)));
    assert.deepEqual(types.find((t) => t.type === 'urn:oc:entityType:parkingSpot'), { type: 'urn:oc:entityType:parkingSpot', description: 'Parking Spot' });
    assert.ok(types.some((t) => t.type === 'urn:oc:entityType:bikeStation'));
    assert.ok(types.length >= 37);
    // A type first seen through federation joins with an empty description.
    assert.deepEqual(types.find((t) => t.type === 'urn:oc:entityType:wasteContainer'), { type: 'urn:oc:entityType:wasteContainer', description: '' });
  });

  it('finds one type by URN, by short name, or in the dictionary\'s lower-case spelling', async () => {
    const expected = { type: 'urn:oc:entityType:iotdevice', description: 'An internet connected sensor or actuator.' };
    assert.deepEqual((await ok(p(), `${BASE}/types/iotdevice`)).body, expected);
    assert.deepEqual((await ok(p(), `${BASE}/types/urn:oc:entityType:iotdevice`)).body, expected);
    assert.deepEqual((await ok(p(), `${BASE}/types/${enc('urn:oc:entitytype:iotdevice')}`)).body, expected);
    assert.deepEqual((await ok(p(), `${BASE}/types/disParkingSpot`)).body, { type: 'urn:oc:entityType:disParkingSpot', description: 'Disabled Person Parking Spot' });
    await fails(p(), `${BASE}/types/unicorn`, 404, 'unicorn');
  });

  it('answers 404 JSON for unknown discovery routes', async () => {
    await fails(p(), `${BASE}/nothing`, 404, '/discovery/v0/nothing');
  });
});
