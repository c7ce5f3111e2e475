import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { kmToRadians, type Point } from '../../src/domain/geo.js';
import { seedDiscoveryDataset, type SeededAsset } from '../helpers/discovery-dataset.js';
import { fails, geoSearch, publicAssets, sorted, within } from '../helpers/discovery-expect.js';
import { writeMmdb } from '../helpers/mmdb.js';
import { describeEachStore } from '../helpers/platform.js';

const BASE = '/discovery/v0';
const SANTANDER: Point = { latitude: 43.4623, longitude: -3.80998 };
const LONDON: Point = { latitude: 51.507222, longitude: -0.1275 };
const AARHUS: Point = { latitude: 56.1572, longitude: 10.2107 };

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-ip-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * City databases in both layouts operators meet: MaxMind's and DB-IP's own
 * (`location`), and ip-location-db's (at the top of the record), which comes
 * as one file for IPv4 and one for IPv6.
 */
const cities = path.join(dir, 'city.mmdb');
fs.writeFileSync(cities, writeMmdb([
  { network: '203.0.113.0/24', record: { city: { names: { en: 'Santander' } }, location: { ...SANTANDER, accuracy_radius: 20 } } },
  { network: '192.0.2.0/24', record: { country: { iso_code: 'ES' } } },
]));
const ipv6Cities = path.join(dir, 'city-ipv6.mmdb');
fs.writeFileSync(ipv6Cities, writeMmdb([
  { network: '2001:db8:aa::/48', record: { country_code: 'DK', city: 'Aarhus', ...AARHUS } },
  { network: '198.51.100.128/25', record: { country_code: 'GB', city: 'London', ...LONDON } },
]));

describeEachStore('discovery geo search by IP address', (platform) => {
  let open: SeededAsset[];
  before(async () => {
    open = publicAssets((await seedDiscoveryDataset(platform())).assets);
  });

  const geoIds = async (query: string) => sorted((await geoSearch(platform(), query)).ids);
  const around = (centre: Point, km: number) => sorted(open.filter((a) => within(a, centre, kmToRadians(km))).map((a) => a.id));

  for (const [ip, centre, km, place] of [
    ['203.0.113.7', SANTANDER, 2, 'a location record'],
    ['::ffff:203.0.113.250', SANTANDER, 2, 'an IPv4 address written as IPv6'],
    ['198.51.100.200', LONDON, 2, 'a record of the second database, holding its position at the top'],
    ['2001:db8:aa::17', AARHUS, 10, 'an IPv6 address'],
  ] as const) {
    it(`centres the circle on the location of ${place} (${ip})`, async () => {
      const expected = around(centre, km);
      assert.ok(expected.length > 0, 'the data set has assets there');
      assert.deepEqual(await geoIds(`ip=${encodeURIComponent(ip)}&radius=${km}&km=true`), expected);
    });
  }

  it('takes lat and long over ip when both are given', async () => {
    assert.deepEqual(await geoIds(`ip=198.51.100.200&lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1&km=true`), around(SANTANDER, 1));
  });

  for (const [ip, why] of [['10.1.2.3', 'an address the database does not hold'], ['192.0.2.9', 'a record without a position'], ['198.51.100.5', 'a neighbour of a known network']]) {
    it(`answers 400 naming ip for ${why}`, async () => {
      await fails(platform(), `${BASE}/assets/geo/search?ip=${ip}`, 400, `the location of ${ip} cannot be resolved`);
    });
  }

  it('still refuses what is not an address', async () => {
    await fails(platform(), `${BASE}/assets/geo/search?ip=somewhere`, 400, "'ip'");
  });
}, { ipLocationDb: [cities, ipv6Cities] });

describe('IP_LOCATION_DB', () => {
  for (const [what, file] of [['a missing file', path.join(dir, 'missing.mmdb')], ['a file that is not a MaxMind DB', fileURLToPath(import.meta.url)]] as const) {
    it(`stops the start with an error naming it for ${what}`, async () => {
      await assert.rejects(buildApp({ config: testConfig({ databaseUrl: 'sqlite::memory:', ipLocationDb: [cities, file] }) }), (error: Error) => {
        assert.ok(error.message.startsWith(`invalid IP_LOCATION_DB: ${JSON.stringify(file)} is not a readable MaxMind DB file`), error.message);
        return true;
      });
    });
  }
});
