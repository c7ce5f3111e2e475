import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { centralAngle, DEG, EARTH_RADIUS_M, haversineTerm, insideRing, kmToRadians, type Point } from '../../src/domain/geo.js';
import { GEO_TOTAL_CAP } from '../../src/domain/geo-query.js';
import { deleteAsset, describeAsset, EXPERIMENTS, pushAsset, seedDiscoveryDataset, type Dataset, type SeededAsset } from '../helpers/discovery-dataset.js';
import { enc, expectedOrder, fails, featureIds, geoSearch, getJson, ok, publicAssets, sorted, within } from '../helpers/discovery-expect.js';
import { describeEachStore } from '../helpers/platform.js';

const BASE = '/discovery/v0';
const SANTANDER: Point = { latitude: 43.4623, longitude: -3.80998 };

/** The point `metres` from `centre` on the initial bearing `bearing` (degrees from north), on the sphere of EARTH_RADIUS_M. */
function destination(centre: Point, metres: number, bearing: number): Point {
  const d = metres / EARTH_RADIUS_M;
  const [phi1, lambda1, theta] = [centre.latitude * DEG, centre.longitude * DEG, bearing * DEG];
  const phi2 = Math.asin(Math.sin(phi1) * Math.cos(d) + Math.cos(phi1) * Math.sin(d) * Math.cos(theta));
  const lambda2 = lambda1 + Math.atan2(Math.sin(theta) * Math.sin(d) * Math.cos(phi1), Math.cos(d) - Math.sin(phi1) * Math.sin(phi2));
  return { latitude: phi2 / DEG, longitude: ((lambda2 / DEG + 540) % 360) - 180 };
}

/** Deterministic pseudo-random numbers (no flakiness). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describeEachStore('discovery geo', (platform) => {
  let data: Dataset;
  let open: SeededAsset[];
  before(async () => {
    data = await seedDiscoveryDataset(platform());
    open = publicAssets(data.assets);
  });
  const p = () => platform();

  const geoIds = (query: string, token?: string) => geoSearch(p(), query, token);

  it('returns exactly the assets inside circles given in kilometres (brute force)', async () => {
    const random = lcg(7);
    const centres: Point[] = [SANTANDER, { latitude: 51.507222, longitude: -0.1275 }, { latitude: 56.1572, longitude: 10.2107 }];
    for (let i = 0; i < 24; i++) {
      const base = centres[i % centres.length] as Point;
      const centre = { latitude: base.latitude + (random() - 0.5) * 0.06, longitude: base.longitude + (random() - 0.5) * 0.08 };
      const km = [0.2, 0.5, 1, 2.5, 8][i % 5] as number;
      const expected = open.filter((a) => within(a, centre, kmToRadians(km))).map((a) => a.id);
      const { ids, total } = await geoIds(`lat=${centre.latitude}&long=${centre.longitude}&radius=${km}&km=true`);
      assert.deepEqual(sorted(ids), sorted(expected), `circle ${i} (${km} km)`);
      assert.equal(total, expected.length);
    }
  });

  it('answers geo searches that arrive together each with its own assets', async () => {
    const random = lcg(11);
    const areas = Array.from({ length: 12 }, (_, i) => {
      const centre = { latitude: SANTANDER.latitude + (random() - 0.5) * 0.04, longitude: SANTANDER.longitude + (random() - 0.5) * 0.05 };
      return { centre, km: [0.3, 0.6, 1][i % 3] as number };
    });
    const got = await Promise.all(areas.map(({ centre, km }) => geoIds(`lat=${centre.latitude}&long=${centre.longitude}&radius=${km}&km=true`)));
    got.forEach(({ ids, total }, i) => {
      const { centre, km } = areas[i]!;
      const expected = open.filter((a) => within(a, centre, kmToRadians(km))).map((a) => a.id);
      assert.deepEqual(sorted(ids), sorted(expected), `area ${i}`);
      assert.equal(total, expected.length);
    });
  });

  it('reads the radius in radians without km, 1 km by default, and the whole world for huge radii', async () => {
    const radians = 0.0005;
    const inRadians = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=${radians}`);
    assert.deepEqual(sorted(inRadians.ids), sorted(open.filter((a) => within(a, SANTANDER, radians)).map((a) => a.id)));
    const byDefault = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}`);
    assert.deepEqual(sorted(byDefault.ids), sorted(open.filter((a) => within(a, SANTANDER, kmToRadians(1))).map((a) => a.id)));
    const europe = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=0.2`);
    assert.deepEqual(sorted(europe.ids), sorted(open.filter((a) => centralAngle(SANTANDER, a) <= 0.2).map((a) => a.id)));
    const world = await geoIds(`lat=0&long=0&radius=3.14159`);
    assert.equal(world.total, open.length);
  });

  it('returns exactly the assets inside polygons, concave ones too (brute force)', async () => {
    const polygons: Array<Array<[number, number]>> = [
      [[-3.83, 43.45], [-3.79, 43.45], [-3.79, 43.47], [-3.83, 43.47]],
      // A concave "C" over the centre of Santander.
      [[-3.815, 43.455], [-3.795, 43.455], [-3.795, 43.459], [-3.808, 43.459], [-3.808, 43.466], [-3.795, 43.466], [-3.795, 43.47], [-3.815, 43.47]],
      [[-0.2, 51.45], [0.0, 51.45], [-0.1, 51.56]],
      [[10.1, 56.1], [10.4, 56.1], [10.4, 56.3], [10.1, 56.3], [10.1, 56.1]],
    ];
    for (const ring of polygons) {
      const closedless = ring.at(-1)?.[0] === ring[0]?.[0] && ring.at(-1)?.[1] === ring[0]?.[1] ? ring.slice(0, -1) : ring;
      const expected = open.filter((a) => insideRing(a, closedless)).map((a) => a.id);
      const { ids, total } = await geoIds(`query=polygon&points=${enc(JSON.stringify(ring))}`);
      assert.deepEqual(sorted(ids), sorted(expected), JSON.stringify(ring));
      assert.equal(total, expected.length);
      assert.ok(expected.length > 0, 'the polygon holds assets');
    }
  });

  it('combines circle, polygon and city: an asset must satisfy each', async () => {
    const ring: Array<[number, number]> = [[-3.83, 43.45], [-3.80, 43.45], [-3.80, 43.47], [-3.83, 43.47]];
    const radius = kmToRadians(1.2);
    const expected = open.filter((a) => a.site === 'santander' && within(a, SANTANDER, radius) && insideRing(a, ring)).map((a) => a.id);
    const got = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.2&km=true&query=polygon&points=${enc(JSON.stringify(ring))}&city=santander`);
    assert.deepEqual(sorted(got.ids), sorted(expected));
    const london = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.2&km=true&city=london`);
    assert.deepEqual(london.ids, []);
    const onlyCity = await geoIds('city=aarhus');
    assert.deepEqual(sorted(onlyCity.ids), sorted(open.filter((a) => a.site === 'aarhus').map((a) => a.id)));
    const typed = await geoIds(`lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=2&km=true&type=parkingSpot`);
    assert.deepEqual(sorted(typed.ids), sorted(open.filter((a) => a.type === 'urn:oc:entityType:parkingSpot' && within(a, SANTANDER, kmToRadians(2))).map((a) => a.id)));
  });

  it('honours sort and order inside an area, and pages it', async () => {
    const inside = open.filter((a) => within(a, SANTANDER, kmToRadians(1.5)));
    assert.ok(inside.length > GEO_TOTAL_CAP, 'the area holds more than the counting cap');
    const few = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=0.3&km=true&per=2` });
    const fewCount = open.filter((a) => within(a, SANTANDER, kmToRadians(0.3))).length;
    assert.equal(few.headers['x-total-count'], String(fewCount));
    const pastTheEnd = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=0.3&km=true&per=2&page=500` });
    assert.deepEqual(pastTheEnd.json(), []);
    assert.equal(pastTheEnd.headers['x-total-count'], String(fewCount));
    // Past the end of more than GEO_TOTAL_CAP matches: the spatial index's order has walked them all and
    // knows the total; a sorted read stops at the cap and leaves it out.
    const farBeyond = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.5&km=true&per=25&page=500` });
    assert.deepEqual(farBeyond.json(), []);
    assert.equal(farBeyond.headers['x-total-count'], String(inside.length));
    const farBeyondSorted = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.5&km=true&per=25&page=500&sort=recorded_at` });
    assert.deepEqual(farBeyondSorted.json(), []);
    assert.equal(farBeyondSorted.headers['x-total-count'], undefined);
    const byRecorded = expectedOrder(inside, 'recorded_at', 'asc');
    const seen: string[] = [];
    for (let page = 1; page <= 20 && seen.length < inside.length; page++) {
      const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.5&km=true&sort=recorded_at&order=ASC&per=25&page=${page}` });
      // More than GEO_TOTAL_CAP match: full pages leave the total out, the last (short) page gives it.
      const last = page * 25 >= inside.length;
      assert.equal(res.headers['x-total-count'], last ? String(inside.length) : undefined);
      // Grouping by type reorders across collections: compare each type's features with the expected order.
      seen.push(...featureIds(res.json()));
    }
    assert.equal(seen.length, byRecorded.length, 'count');
    assert.deepEqual(sorted(seen), sorted(byRecorded));
    const unsorted = new Set<string>();
    for (let page = 1; page <= 20 && unsorted.size < inside.length; page++) {
      const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.5&km=true&per=30&page=${page}` });
      for (const id of featureIds(res.json())) {
        assert.ok(!unsorted.has(id), 'no asset on two pages');
        unsorted.add(id);
      }
    }
    assert.deepEqual(sorted(unsorted), sorted(inside.map((a) => a.id)));
    const first = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?lat=${SANTANDER.latitude}&long=${SANTANDER.longitude}&radius=1.5&km=true&sort=recorded_at&order=ASC&per=5` });
    const firstIds = featureIds(first.json());
    assert.deepEqual(sorted(firstIds), sorted(byRecorded.slice(0, 5)));
  });

  it('groups features by asset type in GeoJSON, with the feature properties', async () => {
    const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?city=london&sort=id&per=1000` });
    assert.equal(res.headers['content-type'], 'application/geojson');
    const collections = res.json();
    const london = open.filter((a) => a.site === 'london');
    // Collections come in the order their type first appears in the sorted features.
    const order = expectedOrder(london, 'id', 'asc').map((id) => london.find((a) => a.id === id)!.type);
    assert.deepEqual(collections.map((c: any) => c.properties.name), [...new Set(order)]);
    const asset = london.find((a) => a.service === 'aqn')!;
    const feature = collections.flatMap((c: any) => c.features).find((f: any) => f.properties.id === asset.id);
    assert.deepEqual(feature, {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [asset.longitude, asset.latitude] },
      properties: {
        id: asset.id, type: asset.type, name: asset.name, site: 'london', service: 'aqn', provider: null, group: null,
        origin: 'city', last_update_at: asset.lastReadingAt,
      },
    });
  });

  it('pages /assets/geo/ so that no answer is unbounded', async () => {
    for (const path of ['/assets/geo/', '/assets/geo']) {
      const res = await p().app.inject({ method: 'GET', url: `${BASE}${path}` });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/geojson/);
      assert.equal(res.headers['x-total-count'], String(open.length));
      assert.equal(featureIds(res.json()).length, 30);
    }
    const seen: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo?sort=id&per=100&page=${page}` });
      seen.push(...featureIds(res.json()));
    }
    assert.deepEqual(sorted(seen), sorted(open.map((a) => a.id)));
    await fails(p(), `${BASE}/assets/geo?per=5000`, 400, "'per'");
  });

  for (const [query, name] of [
    ['lat=43.4', 'long'], ['long=-3.8', 'lat'], ['lat=91&long=0', 'lat'], ['lat=0&long=181', 'long'], ['lat=north&long=0', 'lat'],
    ['lat=0&long=0&radius=-2', 'radius'], ['lat=0&long=0&radius=wide', 'radius'], ['lat=0&long=0&radius=1&km=perhaps', 'km'],
    ['radius=2', 'radius'], ['query=circle', 'query'], ['query=polygon', 'points'], ['points=%5B1,2%5D', 'points'],
    ['points=%5B%5B0,0%5D,%5B1,1%5D%5D', 'points'], ['points=%5B%5B0,0%5D,%5B1,95%5D,%5B2,0%5D%5D', 'points'], ['points=nonsense', 'points'],
    ['ip=not-an-address', 'ip'], ['ip=203.0.113.9', 'ip'], ['per=0', 'per'], ['sort=distance', 'sort'],
  ]) {
    it(`answers 400 naming the parameter for geo search ${query}`, async () => {
      await fails(p(), `${BASE}/assets/geo/search?${query}`, 400, `'${name}'`);
    });
  }

  it('answers 404 for an unknown city', async () => {
    await fails(p(), `${BASE}/assets/geo/search?city=atlantis`, 404, 'atlantis');
  });

  it('keeps experiment assets out of anonymous geo searches', async () => {
    const near = `lat=43.4625&long=-3.8045&radius=2&km=true`;
    const anonymous = await geoIds(near);
    assert.ok(anonymous.ids.every((id) => !id.includes(':experimenters:')));
    const alice = (await p().userToken('alice')).token;
    const mine = await geoIds(near, alice);
    const own = data.assets.filter((a) => a.site === 'experimenters' && within(a, { latitude: 43.4625, longitude: -3.8045 }, kmToRadians(2)));
    assert.equal(mine.total, anonymous.total + own.length);
    const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?${near}&filter=site:experimenters&per=1000`, headers: { authorization: `Bearer ${alice}` } });
    const feature = res.json()[0].features[0];
    assert.equal(feature.properties.origin, 'experiment');
  });

  it('lists the assets near an asset, nearest first, without the asset itself', async () => {
    const asset = open.find((a) => a.id === 'urn:oc:entity:santander:environmental:fixed:494') ?? open.find((a) => a.service === 'environmental')!;
    for (const [query, radius] of [['', kmToRadians(1)], ['radius=0.0004', 0.0004], ['radius=2.5&km=true', kmToRadians(2.5)]] as Array<[string, number]>) {
      const candidates = open.filter((a) => a.id !== asset.id && within(a, asset, radius));
      const got = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?${query}&per=1000`);
      const ids = got.body.map((a: { id: string }) => a.id);
      assert.deepEqual(sorted(ids), sorted(candidates.map((a) => a.id)), query);
      assert.equal(got.headers['x-total-count'], String(candidates.length));
      const distances = ids.map((id: string) => haversineTerm(asset, open.find((a) => a.id === id)!));
      assert.ok(distances.every((d: number, i: number) => i === 0 || d >= distances[i - 1]), 'nearest first');
    }
    const page = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?per=3&page=2`);
    const full = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?per=6`);
    assert.deepEqual(page.body.map((a: { id: string }) => a.id), full.body.slice(3).map((a: { id: string }) => a.id));
    // Nearest first is the only order here: sort, order and sample are not parameters of nearby, and are ignored
    // even when given twice; a parameter it has, given twice, is a 400 naming it.
    const ignoring = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?per=6&order=id,type&order=desc&sort=id&sample=1&sample=2`);
    assert.deepEqual(ignoring.body, full.body);
    await fails(p(), `${BASE}/assets/${enc(asset.id)}/nearby?per=6&per=7`, 400, "'per'");
  });

  it('lists the assets inside a polygon that starts at the asset, and within a city', async () => {
    const asset = open.find((a) => a.site === 'santander' && a.service === 'parking')!;
    const further: Array<[number, number]> = [[asset.longitude + 0.01, asset.latitude], [asset.longitude + 0.01, asset.latitude + 0.01], [asset.longitude, asset.latitude + 0.01]];
    const ring: Array<[number, number]> = [[asset.longitude, asset.latitude], ...further];
    const expected = open.filter((a) => a.id !== asset.id && insideRing(a, ring)).map((a) => a.id);
    const got = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?query=polygon&points=${enc(JSON.stringify(further))}&per=1000`);
    assert.deepEqual(sorted(got.body.map((a: { id: string }) => a.id)), sorted(expected));
    const elsewhere = await ok(p(), `${BASE}/assets/${enc(asset.id)}/nearby?radius=5&km=true&city=london`);
    assert.deepEqual(elsewhere.body, []);
    await fails(p(), `${BASE}/assets/${enc(asset.id)}/nearby?city=atlantis`, 404, 'atlantis');
    await fails(p(), `${BASE}/assets/${enc(asset.id)}/nearby?radius=-1`, 400, "'radius'");
    await fails(p(), `${BASE}/assets/${enc(asset.id)}/nearby?query=polygon`, 400, "'points'");
    const invisible = data.assets.find((a) => a.site === 'experimenters')!;
    await fails(p(), `${BASE}/assets/${enc(invisible.id)}/nearby`, 404, invisible.id);
    assert.equal((await getJson(p(), `${BASE}/assets/urn:oc:entity:santander:none:x/nearby?radius=-1`)).status, 400);
  });

  // Last: it adds assets far from every other test's areas.
  it('counts an area right up to its edge, after creates, moves and deletes, and without experiment assets', async () => {
    const centre: Point = { latitude: 59.91, longitude: 10.75 };
    const radius = kmToRadians(0.5);
    const at = (metres: number, bearing: number): Point => destination(centre, metres, bearing);
    const place = (id: string, point: Point) => describeAsset(id, 'urn:oc:entityType:iotdevice', point.longitude, point.latitude, {
      location: { type: 'geo:json', value: { type: 'Point', coordinates: [point.longitude, point.latitude] } },
    }, p().clock.now());
    // Well inside, decimetres either side of the edge, and outside yet inside the index's box.
    const placed: SeededAsset[] = [];
    for (const metres of [50, 350, 499.6, 499.9, 500.1, 500.4, 540, 650]) {
      for (const bearing of [0, 45, 90, 135, 180, 225, 270, 315]) {
        placed.push(await pushAsset(p(), place(`urn:oc:entity:aarhus:edge:m${metres}:b${bearing}`, at(metres, bearing))));
      }
    }
    const area = `lat=${centre.latitude}&long=${centre.longitude}&radius=0.5&km=true`;
    const inside = () => placed.filter((a) => within(a, centre, radius)).length;
    // Two per page: the page is full, so the total is counted apart from it.
    const total = async (token?: string) => {
      const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?${area}&per=2`, headers: token ? { authorization: `Bearer ${token}` } : {} });
      assert.equal(res.statusCode, 200, res.body);
      return res.headers['x-total-count'];
    };
    assert.equal(inside(), 32);
    assert.equal(await total(), '32');
    assert.deepEqual(sorted((await geoIds(area)).ids), sorted(placed.filter((a) => within(a, centre, radius)).map((a) => a.id)));

    const alice = (await p().userToken('alice')).token;
    await pushAsset(p(), place(`urn:oc:entity:experimenters:${data.users.experimenter}:${EXPERIMENTS.first}:edge`, centre));
    assert.equal(await total(), '32', 'an experiment asset is not counted for anonymous callers');
    assert.equal(await total(alice), '33', 'its experimenter counts it');

    const gone = placed.find((a) => a.id.endsWith(':m499.9:b90'))!;
    await deleteAsset(p(), gone);
    assert.equal(await total(), '31');
    const mover = placed.find((a) => a.id.endsWith(':m650:b45'))!;
    await pushAsset(p(), { ...mover, attributes: { location: { type: 'geo:json', value: { type: 'Point', coordinates: [centre.longitude, centre.latitude] } } } }, true);
    assert.equal(await total(), '32', 'moved into the area');
    await pushAsset(p(), mover, true);
    assert.equal(await total(), '31', 'moved out again');
    await pushAsset(p(), place(gone.id, at(499.9, 90)));
    assert.equal(await total(), '32', 'created again after its delete');
  });

  it('decides positions a metre either side of the edge exactly where single precision is coarsest', async () => {
    // Near the antimeridian a float holds a longitude to 1.7 m at best; near the poles one degree of longitude is short.
    for (const centre of [{ latitude: 0.3, longitude: 179.99 }, { latitude: 78.2, longitude: -179.95 }]) {
      const tag = `c${Math.round(centre.latitude)}`;
      const placed: SeededAsset[] = [];
      for (const metres of [497.5, 498.5, 499.3, 499.7, 500.3, 500.7, 501.5, 502.5]) {
        for (const bearing of [0, 60, 90, 150, 210, 270, 330]) {
          const point = destination(centre, metres, bearing);
          placed.push(await pushAsset(p(), describeAsset(`urn:oc:entity:aarhus:edge:${tag}:m${metres}:b${bearing}`, 'urn:oc:entityType:iotdevice', point.longitude, point.latitude, {
            location: { type: 'geo:json', value: { type: 'Point', coordinates: [point.longitude, point.latitude] } },
          }, p().clock.now())));
        }
      }
      const area = `lat=${centre.latitude}&long=${centre.longitude}&radius=0.5&km=true`;
      const expected = placed.filter((a) => within(a, centre, kmToRadians(0.5))).map((a) => a.id);
      assert.equal(expected.length, 28);
      assert.deepEqual(sorted((await geoIds(area)).ids), sorted(expected));
      const res = await p().app.inject({ method: 'GET', url: `${BASE}/assets/geo/search?${area}&per=2` });
      assert.equal(res.headers['x-total-count'], '28');
    }
  });
});
