import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { matchesAllTerms } from '../../src/domain/search-terms.js';
import { deleteAsset, EXPERIMENTS, pushAsset, seedDiscoveryDataset, STEP_MS, type Dataset, type SeededAsset } from '../helpers/discovery-dataset.js';
import { allPages, enc, expectedOrder, fails, getJson, ok, publicAssets, sorted, type SortKey } from '../helpers/discovery-expect.js';
import { describeEachStore } from '../helpers/platform.js';

const BASE = '/discovery/v0';

describeEachStore('discovery assets', (platform) => {
  let data: Dataset;
  let open: SeededAsset[];
  before(async () => {
    data = await seedDiscoveryDataset(platform());
    open = publicAssets(data.assets);
  });
  const p = () => platform();
  const token = async (username: string) => (await p().userToken(username)).token;
  const find = (pred: (a: SeededAsset) => boolean) => {
    const a = data.assets.find(pred);
    assert.ok(a);
    return a;
  };

  it('lists 30 public assets, most recently updated first, with X-Total-Count', async () => {
    const got = await ok(p(), `${BASE}/assets`);
    assert.match(String(got.headers['content-type']), /^application\/json/);
    assert.equal(got.headers['x-total-count'], String(open.length));
    assert.deepEqual(got.body.map((a: { id: string }) => a.id), expectedOrder(open, 'last_reading_at', 'desc').slice(0, 30));
  });

  it('renders an asset with its context, position and site', async () => {
    const asset = find((a) => a.id === 'urn:oc:entity:london:aqn:WMZ');
    const got = await ok(p(), `${BASE}/assets?urn=${enc(asset.id)}`);
    assert.deepEqual(got.body, [{
      id: asset.id,
      type: asset.type,
      context: {
        service: 'aqn', provider: null, group: null, name: 'WMZ', experimenter: null, experiment: null,
        last_reading_at: new Date(asset.lastReadingAt).toISOString(),
        recorded_at: new Date(asset.recordedAt).toISOString(),
        last_updated_at: new Date(asset.recordedAt).toISOString(),
        position: { latitude: asset.latitude, longitude: asset.longitude, city: 'London', country_code: 'UK', country: 'United Kingdom' },
      },
      related: {
        service: { type: 'aqn' }, provider: { type: null }, group: { type: null },
        site: {
          id: 'london', type: 'city', name: 'London', position: { latitude: 51.507222, longitude: -0.1275 },
          links: {
            self: 'http://127.0.0.1:8080/discovery/v0/assets/sites/london',
            related: { href: 'http://127.0.0.1:8080/discovery/v0/assets?filter=site%3Alondon' },
          },
        },
        experiment: null,
      },
    }]);
  });

  for (const [sort, order] of [['id', 'asc'], ['id', 'desc'], ['type', 'asc'], ['site', 'desc'], ['service', 'asc'], ['provider', 'desc'],
    ['provider', 'asc'], ['last_reading_at', 'asc'], ['recorded_at', 'desc'], ['recorded_at', 'asc']] as Array<[SortKey, 'asc' | 'desc']>) {
    it(`pages through every asset exactly once, sorted by ${sort} ${order}`, async () => {
      const { ids, totals } = await allPages(p(), `${BASE}/assets?sort=${sort}&order=${order.toUpperCase()}`, 37);
      assert.equal(new Set(ids).size, ids.length, 'no asset twice');
      assert.deepEqual(ids, expectedOrder(open, sort, order));
      assert.ok(totals.every((t) => t === open.length));
    });
  }

  it('takes offset instead of page, and per up to 1000', async () => {
    const all = expectedOrder(open, 'id', 'asc');
    const got = await ok(p(), `${BASE}/assets?sort=id&offset=45&per=10&page=7`);
    assert.deepEqual(got.body.map((a: { id: string }) => a.id), all.slice(45, 55));
    const everything = await ok(p(), `${BASE}/assets?sort=id&per=1000`);
    assert.deepEqual(everything.body.map((a: { id: string }) => a.id), all);
    const beyond = await ok(p(), `${BASE}/assets?page=100&per=1000`);
    assert.deepEqual(beyond.body, []);
    assert.equal(beyond.headers['x-total-count'], String(open.length));
  });

  const cases: Array<[string, (a: SeededAsset) => boolean]> = [
    ['filter=site:london', (a) => a.site === 'london'],
    ['filter=site:london,site:aarhus', (a) => a.site === 'london' || a.site === 'aarhus'],
    ['filter=service:parking', (a) => a.service === 'parking'],
    ['filter=provider:fixed,site:santander', (a) => a.provider === 'fixed' && a.site === 'santander'],
    ['filter=group:76d1ee61-8062-42d9-b417-fac75998f5c3', (a) => a.group === '76d1ee61-8062-42d9-b417-fac75998f5c3'],
    ['type=urn:oc:entityType:busStop', (a) => a.type === 'urn:oc:entityType:busStop'],
    ['type=parkingSpot&filter=site:santander', (a) => a.type === 'urn:oc:entityType:parkingSpot'],
    ['filter=type:iotdevice,type:transportStation', (a) => a.type === 'urn:oc:entityType:iotdevice' || a.type === 'urn:oc:entityType:transportStation'],
    ['type=iotdevice&filter=type:transportStation', () => false],
    ['urn=urn:oc:entity:santander:environmental:', (a) => a.id.startsWith('urn:oc:entity:santander:environmental:')],
    ['urn=urn:oc:entity:santander:environmental:fixed:4', (a) => a.id.startsWith('urn:oc:entity:santander:environmental:fixed:4')],
    ['urn=urn:oc:entity:lon', (a) => a.id.startsWith('urn:oc:entity:lon')],
    [`lastUpdated=${new Date(data0() + 100 * STEP_MS).toISOString()}`, (a) => a.lastReadingAt >= data0() + 100 * STEP_MS],
    [`lastUpdate=${new Date(data0() + 250 * STEP_MS + 1).toISOString()}&filter=site:santander`, (a) => a.lastReadingAt >= data0() + 250 * STEP_MS + 1 && a.site === 'santander'],
    ['filter=experiment:exp-1', () => false],
    ['filter=site:experimenters', () => false],
  ];
  function data0(): number {
    return Date.parse('2026-01-01T00:00:00.000Z');
  }
  for (const [query, pred] of cases) {
    it(`selects exactly the matching assets with ${query}`, async () => {
      const expected = expectedOrder(open.filter(pred), 'id', 'asc');
      const got = await ok(p(), `${BASE}/assets?${query}&sort=id&per=1000`);
      assert.deepEqual(got.body.map((a: { id: string }) => a.id), expected);
      assert.equal(got.headers['x-total-count'], String(expected.length));
    });
  }

  it('draws a random sample of distinct matching assets', async () => {
    const santander = new Set(open.filter((a) => a.site === 'santander').map((a) => a.id));
    for (const n of [1, 7, 50]) {
      const got = await ok(p(), `${BASE}/assets?sample=${n}&filter=site:santander`);
      const ids = got.body.map((a: { id: string }) => a.id);
      assert.equal(ids.length, n);
      assert.equal(new Set(ids).size, n);
      assert.ok(ids.every((id: string) => santander.has(id)));
      assert.equal(got.headers['x-total-count'], String(santander.size));
    }
    const few = await ok(p(), `${BASE}/assets?sample=1000&filter=site:aarhus`);
    assert.deepEqual(sorted(few.body.map((a: { id: string }) => a.id)), sorted(open.filter((a) => a.site === 'aarhus').map((a) => a.id)));
  });

  for (const [query, name] of [
    ['per=0', 'per'], ['per=1001', 'per'], ['per=ten', 'per'], ['page=0', 'page'], ['page=-2', 'page'], ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'], ['sample=0', 'sample'], ['sample=1001', 'sample'], ['sort=colour', 'sort'], ['order=sideways', 'order'],
    ['filter=colour:red', 'filter'], ['filter=site', 'filter'], ['lastUpdated=2026-02-30T00:00:00Z', 'lastUpdated'],
    ['lastUpdated=last%20week', 'lastUpdated'], ['type=', 'type'], ['urn=', 'urn'],
  ]) {
    it(`answers 400 naming the parameter for ${query}`, async () => {
      await fails(p(), `${BASE}/assets?${query}`, 400, `'${name}'`);
    });
  }

  it('shows one asset with its attributes under data', async () => {
    const asset = find((a) => a.id === 'urn:oc:entity:santander:environmental:fixed:459' || a.id.startsWith('urn:oc:entity:london:transport:'));
    const got = await ok(p(), `${BASE}/assets/${enc(asset.id)}`);
    assert.equal(got.body.id, asset.id);
    assert.equal(got.body.context.position.latitude, asset.latitude);
    assert.deepEqual(sorted(got.body.data.attributes.types), sorted(['TimeInstant', ...Object.keys(asset.attributes)]));
    for (const [name, a] of Object.entries(asset.attributes)) {
      const shown = got.body.data.attributes.data[name];
      assert.equal(shown.type, a.type);
      assert.equal(shown.value, typeof a.value === 'string' ? a.value : JSON.stringify(a.value));
    }
  });

  it('reads asset ids with dots and colons, URL-encoded or not', async () => {
    const asset = find((a) => a.id.includes(':56.24:10.33'));
    assert.equal((await ok(p(), `${BASE}/assets/${asset.id}`)).body.context.name, '56.24:10.33');
    assert.equal((await ok(p(), `${BASE}/assets/${enc(asset.id)}`)).body.context.group, '76d1ee61-8062-42d9-b417-fac75998f5c3');
  });

  it('answers 404 for an unknown asset, on every asset route', async () => {
    for (const suffix of ['', '/data', '/data/ngsiv2', '/ngsiv2', '/nearby']) {
      await fails(p(), `${BASE}/assets/urn:oc:entity:santander:nothing:here${suffix}`, 404, 'urn:oc:entity:santander:nothing:here');
    }
  });

  it('answers asset lookups that arrive together each with its own asset', async () => {
    const hidden = find((a) => a.site === 'experimenters');
    const shown = open.slice(0, 40);
    // Characters a list of ids must carry intact to the store (JSON on SQLite, an array on PostgreSQL).
    const unknown = [...shown.slice(0, 5).map((a) => `${a.id}:nothing`), `${shown[1]!.id}\\`, `${shown[2]!.id}"`, `${shown[3]!.id}',{}`, `${shown[4]!.id}é😀`];
    const ids = [...shown.map((a) => a.id), shown[0]!.id, ...unknown, hidden.id];
    const got = await Promise.all(ids.map((id) => getJson(p(), `${BASE}/assets/${enc(id)}`)));
    got.forEach((answer, i) => {
      const id = ids[i]!;
      if (unknown.includes(id) || id === hidden.id) {
        assert.equal(answer.status, 404, id);
        assert.ok(String(answer.body.description).includes(id), answer.body.description);
      } else {
        assert.equal(answer.status, 200, id);
        assert.equal(answer.body.id, id);
      }
    });
  });

  it('gives the NGSI 9/10 data: attributes with metadata as lists, values as strings', async () => {
    const asset = find((a) => a.service === 'transport');
    const got = await ok(p(), `${BASE}/assets/${enc(asset.id)}/data`);
    assert.equal(got.body.id, asset.id);
    assert.equal(got.body.related.site.id, 'london');
    const description = got.body.attributes.find((a: { name: string }) => a.name === 'description');
    assert.deepEqual(description, {
      name: 'description', type: 'urn:oc:attributeType:description', value: 'Railway station',
      metadata: [{ name: 'source', type: 'Text', value: 'TransportAPI live feed' }],
    });
    const location = got.body.attributes.find((a: { name: string }) => a.name === 'location');
    assert.equal(location.value, JSON.stringify({ type: 'Point', coordinates: [asset.longitude, asset.latitude] }));
  });

  it('gives NGSI v2 documents, one asset or a page', async () => {
    const asset = find((a) => a.service === 'parking');
    const one = await ok(p(), `${BASE}/assets/${enc(asset.id)}/ngsiv2`);
    assert.equal(one.body.length, 1);
    assert.equal(one.body[0].doc.id, asset.id);
    assert.equal(one.body[0].doc.type, asset.type);
    assert.equal(one.body[0].doc.TimeInstant.value, new Date(asset.recordedAt).toISOString());
    assert.deepEqual(one.body[0].doc['presenceState:parking'], { ...asset.attributes['presenceState:parking'], metadata: {} });

    const page = await ok(p(), `${BASE}/assets/ngsiv2?filter=site:aarhus&sort=id&per=5`);
    assert.equal(page.headers['x-total-count'], '14');
    assert.deepEqual(page.body.map((d: { doc: { id: string } }) => d.doc.id), expectedOrder(open.filter((a) => a.site === 'aarhus'), 'id', 'asc').slice(0, 5));

    const searched = await ok(p(), `${BASE}/assets/ngsiv2?query=TransportAPI+live&per=100`);
    assert.equal(searched.body.length, open.filter((a) => a.service === 'transport').length);
  });

  it('gives NGSI v2 data: the readings as historic, newest first, and the current state as observations', async () => {
    const asset = find((a) => a.service === 'environmental' && a.site === 'london');
    const original = asset.attributes['temperature:ambient']?.value;
    const before = p().clock.now();
    p().clock.set(data.now + 60_000);
    const changed = { ...asset, recordedAt: data.now, attributes: { 'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: 31.5 } } };
    const pushed = await pushAsset(p(), changed, true);
    p().clock.set(before);
    // Keep the expectations in step with what was pushed.
    asset.lastReadingAt = pushed.lastReadingAt;
    asset.recordedAt = pushed.recordedAt;
    asset.attributes = { ...asset.attributes, ...changed.attributes };

    const got = await ok(p(), `${BASE}/assets/${enc(asset.id)}/data/ngsiv2?per=2`);
    assert.equal(got.body.id, asset.id);
    assert.equal(got.body.attributes.historic.length, 2);
    const [newest] = got.body.attributes.historic;
    assert.ok(['31.5', new Date(data.now).toISOString()].includes(newest.value));
    assert.equal(newest.metadata.recvTime.value, new Date(data.now + 60_000).toISOString());
    const all = await ok(p(), `${BASE}/assets/${enc(asset.id)}/data/ngsiv2?per=1000`);
    const temps = all.body.attributes.historic.filter((h: any) => h.metadata.attrName.value === 'temperature:ambient').map((h: any) => h.value);
    assert.deepEqual(temps, ['31.5', String(original)]);
    const [observation] = got.body.attributes.observations;
    assert.equal(observation.id, asset.id);
    assert.equal(observation.isPattern, false);
    assert.equal(observation.attributes['temperature:ambient'].value, 31.5);
    assert.deepEqual(observation.attributes.location.value, { type: 'Point', coordinates: [asset.longitude, asset.latitude] });
    await fails(p(), `${BASE}/assets/${enc(asset.id)}/data/ngsiv2?per=0`, 400, "'per'");
  });

  const searchable = (a: SeededAsset) => ({ id: a.id, type: a.type, site: a.site, attributes: { TimeInstant: {}, ...a.attributes } });
  for (const query of ['TransportAPI+live', 'TEMPERATURE london', 'degreecelsius', 'railway', 'santander+fixed+46', 'parkingspot np3', 'position+santander', '100%25', 'a_b']) {
    it(`searches metadata: every word of '${query}' must match`, async () => {
      const terms = decodeURIComponent(query).toLowerCase().split(/[\s+]+/);
      const expected = expectedOrder(open.filter((a) => matchesAllTerms(searchable(a), terms)), 'id', 'asc');
      const got = await ok(p(), `${BASE}/assets/metadata/search?query=${query}&sort=id&per=1000`);
      assert.deepEqual(got.body.map((a: { id: string }) => a.id), expected);
      assert.equal(got.headers['x-total-count'], String(expected.length));
    });
  }

  it('pages metadata search results and refuses an empty query', async () => {
    const { ids, totals } = await allPages(p(), `${BASE}/assets/metadata/search?query=santander&sort=id`, 20);
    assert.deepEqual(ids, expectedOrder(open.filter((a) => matchesAllTerms(searchable(a), ['santander'])), 'id', 'asc'));
    assert.equal(totals[0], ids.length);
    await fails(p(), `${BASE}/assets/metadata/search`, 400, "'query'");
    await fails(p(), `${BASE}/assets/metadata/search?query=+`, 400, "'query'");
    // sample is not a parameter of metadata search: ignored, even given twice; query given twice is a 400 naming it.
    const first = await ok(p(), `${BASE}/assets/metadata/search?query=santander&sort=id&per=20`);
    assert.deepEqual((await ok(p(), `${BASE}/assets/metadata/search?query=santander&sort=id&per=20&sample=1&sample=2`)).body, first.body);
    await fails(p(), `${BASE}/assets/metadata/search?query=santander&query=parking`, 400, "'query'");
  });

  it('hides experiment assets from anonymous callers and outsiders', async () => {
    const experimentAsset = find((a) => a.site === 'experimenters');
    const outsider = await token('carol');
    for (const t of [undefined, outsider]) {
      const list = await ok(p(), `${BASE}/assets?per=1000`, t);
      assert.ok(list.body.every((a: { id: string }) => !a.id.startsWith('urn:oc:entity:experimenters:')));
      assert.equal(list.headers['x-total-count'], String(open.length));
      await fails(p(), `${BASE}/assets/${enc(experimentAsset.id)}`, 404, experimentAsset.id, t);
      await fails(p(), `${BASE}/assets/${enc(experimentAsset.id)}/data`, 404, experimentAsset.id, t);
      assert.deepEqual((await ok(p(), `${BASE}/assets/experiments/${EXPERIMENTS.first}`, t)).body, []);
      assert.deepEqual((await ok(p(), `${BASE}/assets/experimenters/${data.users.experimenter}`, t)).body, []);
      assert.deepEqual((await ok(p(), `${BASE}/assets/metadata/search?query=quiet+streets`, t)).body, []);
    }
  });

  it('shows the experimenter every asset of their experiments', async () => {
    const alice = await token('alice');
    const mine = data.assets.filter((a) => a.experimenter === data.users.experimenter);
    const got = await ok(p(), `${BASE}/assets/experimenters/${data.users.experimenter}?sort=id`, alice);
    assert.deepEqual(got.body.map((a: { id: string }) => a.id), expectedOrder(mine, 'id', 'asc'));
    assert.equal(got.body[0].context.experimenter, data.users.experimenter);
    assert.equal(got.body[0].related.experiment.type, 'experiment');
    const list = await ok(p(), `${BASE}/assets?per=1000`, alice);
    assert.equal(list.headers['x-total-count'], String(open.length + mine.length));
    assert.equal(list.body.length, open.length + mine.length);
    assert.equal((await ok(p(), `${BASE}/assets/${enc(mine[0]!.id)}`, alice)).body.id, mine[0]!.id);
    const searched = await ok(p(), `${BASE}/assets/metadata/search?query=quiet+streets`, alice);
    assert.equal(searched.body.length, mine.length);
  });

  it('shows a participant only the assets of their experiment', async () => {
    const bob = await token('bob');
    const first = data.assets.filter((a) => a.experiment === EXPERIMENTS.first);
    const second = data.assets.find((a) => a.experiment === EXPERIMENTS.second);
    const got = await ok(p(), `${BASE}/assets/experiments/${EXPERIMENTS.first}?sort=id`, bob);
    assert.deepEqual(got.body.map((a: { id: string }) => a.id), expectedOrder(first, 'id', 'asc'));
    assert.equal(got.headers['x-total-count'], String(first.length));
    assert.deepEqual((await ok(p(), `${BASE}/assets/experiments/${EXPERIMENTS.second}`, bob)).body, []);
    await fails(p(), `${BASE}/assets/${enc(second!.id)}`, 404, second!.id, bob);
    const list = await ok(p(), `${BASE}/assets?per=1`, bob);
    assert.equal(list.headers['x-total-count'], String(open.length + first.length));
    const mine = await ok(p(), `${BASE}/assets/experimenters/${data.users.experimenter}`, bob);
    assert.equal(mine.body.length, first.length);
  });

  it('shows administrators everything', async () => {
    const dora = await token('dora');
    const list = await ok(p(), `${BASE}/assets?per=1000&sort=id`, dora);
    assert.deepEqual(list.body.map((a: { id: string }) => a.id), expectedOrder(data.assets, 'id', 'asc'));
    assert.equal(list.headers['x-total-count'], String(data.assets.length));
    const second = await ok(p(), `${BASE}/assets/experiments/${EXPERIMENTS.second}`, dora);
    assert.equal(second.body.length, data.assets.filter((a) => a.experiment === EXPERIMENTS.second).length);
  });

  it('refuses an invalid bearer token with 401 rather than hiding it', async () => {
    const got = await p().app.inject({ method: 'GET', url: `${BASE}/assets`, headers: { authorization: 'Bearer not.a.token' } });
    assert.equal(got.statusCode, 401);
  });

  it('forgets a deleted asset', async () => {
    const gone = find((a) => a.site === 'patras');
    await deleteAsset(p(), gone);
    await fails(p(), `${BASE}/assets/${enc(gone.id)}`, 404, gone.id);
    const list = await ok(p(), `${BASE}/assets?filter=site:patras`);
    assert.deepEqual(list.body, []);
    assert.equal(list.headers['x-total-count'], '0');
    const all = await ok(p(), `${BASE}/assets?per=1`);
    assert.equal(all.headers['x-total-count'], String(open.length - 1));
  });
});
