import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { Store } from '../../src/storage/store.js';
import { describeEachStore } from '../helpers/platform.js';
import { assetBody, assetRow, countsOf, create, read, readingsOf, remove, timeInstant, update, writeHeaders } from '../helpers/federation.js';

const QUOTA = { error: 'BadRequest', description: 'The site reached its quota' };

describeEachStore('federation: quotas', (platform) => {
  it('refuses a create beyond the quota; a delete frees a place', async () => {
    const p = platform();
    const token = await p.siteToken('patras', { latitude: 38.24, longitude: 21.73, quota: 2 });
    const id = (n: number) => `urn:oc:entity:patras:env:q:${n}`;
    assert.equal((await create(p, token, assetBody(id(1)))).statusCode, 201);
    assert.equal((await create(p, token, assetBody(id(2)))).statusCode, 201);
    const full = await create(p, token, assetBody(id(3)));
    assert.equal(full.statusCode, 400);
    assert.equal(full.headers['content-type'], 'application/json');
    assert.deepEqual(full.json(), QUOTA);
    assert.equal(await assetRow(p, id(3)), undefined);
    // Updates do not count against the quota.
    assert.equal((await update(p, token, id(1), { TimeInstant: timeInstant() })).statusCode, 204);
    assert.equal((await remove(p, token, id(2))).statusCode, 204);
    assert.equal((await create(p, token, assetBody(id(3)))).statusCode, 201);
    assert.deepEqual((await create(p, token, assetBody(id(4)))).json(), QUOTA);
    // Reviving a deleted id takes a place like any create.
    assert.deepEqual((await create(p, token, assetBody(id(2)))).json(), QUOTA);
  });

  it('checks the quota after the asset content', async () => {
    const p = platform();
    const token = await p.siteToken('patras', { latitude: 38.24, longitude: 21.73, quota: 2 });
    const res = await create(p, token, assetBody('urn:oc:entity:patras:env:q:9', { TimeInstant: undefined }));
    assert.equal(res.json().description, 'Asset attribute TimeInstant in payload not found!');
  });

  it('lets only one of many concurrent creates take the last place', async () => {
    const p = platform();
    const token = await p.siteToken('heraklion', { latitude: 35.34, longitude: 25.13, quota: 3 });
    for (const n of [1, 2]) assert.equal((await create(p, token, assetBody(`urn:oc:entity:heraklion:env:a:${n}`))).statusCode, 201);
    const results = await Promise.all(Array.from({ length: 12 }, (_, n) => create(p, token, assetBody(`urn:oc:entity:heraklion:env:b:${n}`))));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.statusCode === 400)) assert.deepEqual(r.json(), QUOTA);
    assert.equal((await countsOf(p, 'heraklion')).reduce((n, c) => n + c.assets, 0), 3);
  });

  it('uses SITE_QUOTA for a site without a quota of its own', async () => {
    const p = platform();
    const token = await p.siteToken('default-quota', { latitude: 1, longitude: 1, quota: null });
    assert.equal(p.ctx.config.siteQuota, 100_000);
    assert.equal((await create(p, token, assetBody('urn:oc:entity:default-quota:env:a:1'))).statusCode, 201);
  });
});

describeEachStore('federation: a small SITE_QUOTA', (platform) => {
  it('applies the platform default quota', async () => {
    const p = platform();
    const token = await p.siteToken('tiny', { latitude: 1, longitude: 1, quota: null });
    assert.equal((await create(p, token, assetBody('urn:oc:entity:tiny:env:a:1'))).statusCode, 201);
    assert.deepEqual((await create(p, token, assetBody('urn:oc:entity:tiny:env:a:2'))).json(), QUOTA);
  });
}, { siteQuota: 1 });

describeEachStore('federation: concurrency', (platform) => {
  it('many concurrent creates of one id: exactly one 201, 422 for the rest', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:env:race:1';
    const results = await Promise.all(Array.from({ length: 25 }, (_, n) => create(p, token, assetBody(id, { run: { type: 'Number', value: n } }))));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, ...Array(24).fill(422)]);
    for (const r of results.filter((x) => x.statusCode === 422)) assert.deepEqual(r.json(), { error: 'Unprocessable', description: 'Already Exists' });
    // The winner's readings only.
    assert.equal((await readingsOf(p, id)).length, 3);
    assert.deepEqual((await countsOf(p, 'santander')).map((c) => c.assets), [1]);
  });

  it('concurrent updates of one asset all land, none lost', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:env:race:2';
    assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
    const results = await Promise.all(Array.from({ length: 20 }, (_, n) => update(p, token, id, { TimeInstant: timeInstant(), [`a${n}`]: { type: 'Number', value: n } })));
    assert.deepEqual(results.map((r) => r.statusCode), Array(20).fill(204));
    const entity = (await read(p, token, id)).json();
    for (let n = 0; n < 20; n++) assert.equal(entity[`a${n}`].value, n);
    // TimeInstant and temperature at create, TimeInstant and one attribute per update.
    assert.equal((await readingsOf(p, id)).length, 2 + 20 * 2);
  });

  it('concurrent updates that change an attribute type leave its last type and every reading', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:env:race:4';
    assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
    const types = ['Number', 'Text', 'Float', 'Integer'];
    const results = await Promise.all(types.map((type, n) => update(p, token, id, { TimeInstant: timeInstant(), level: { type, value: n } })));
    assert.deepEqual(results.map((r) => r.statusCode), [204, 204, 204, 204]);
    assert.deepEqual((await read(p, token, id)).json().level, { type: 'Integer', value: 3, metadata: {} });
    const row = await assetRow(p, id);
    const attributes = await p.ctx.store.read.selectFrom('asset_attributes').select(['name', 'type']).where('asset_seq', '=', row?.seq as number).where('name', '=', 'level').execute();
    assert.deepEqual(attributes, [{ name: 'level', type: 'Integer' }]);
    assert.deepEqual((await readingsOf(p, id)).filter((r) => r.attr_name === 'level').map((r) => [r.attr_type, r.attr_value]), [['Number', '0'], ['Text', '1'], ['Float', '2'], ['Integer', '3']]);
  });

  it('a failing request does not disturb the requests committed with it', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const id = 'urn:oc:entity:santander:env:race:3';
    const [ok, duplicate, missing] = await Promise.all([
      create(p, token, assetBody(id)),
      create(p, token, assetBody('urn:oc:entity:santander:env:race:1')),
      update(p, token, 'urn:oc:entity:santander:env:race:none', { TimeInstant: timeInstant() }),
    ]);
    assert.deepEqual([ok.statusCode, duplicate.statusCode, missing.statusCode], [201, 422, 404]);
    assert.equal((await readingsOf(p, id)).length, 2);
  });
});

describeEachStore('federation: sites stay apart', (platform) => {
  it("refuses a site's writes and reads of another site's asset, by every route", async () => {
    const p = platform();
    const london = await p.siteToken('london', { latitude: 51.5074, longitude: -0.1278 });
    const santander = await p.siteToken('santander');
    const id = 'urn:oc:entity:london:aqn:CD9';
    assert.equal((await create(p, london, assetBody(id))).statusCode, 201);
    const before = (await read(p, london, id)).json();
    const prefix = 'Asset.id prefix wrong: the assets of this site start with urn:oc:entity:santander:';
    for (const res of [
      await create(p, santander, assetBody(id)),
      await update(p, santander, id, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: -99 } }),
      await remove(p, santander, id),
      await read(p, santander, id),
    ]) {
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { error: 'BadRequest', description: prefix });
    }
    assert.deepEqual((await read(p, london, id)).json(), before);
    assert.equal((await readingsOf(p, id)).length, 2);
  });

  it('runs the experimenters site like any other, with its longer ids', async () => {
    const p = platform();
    const token = await p.siteToken('experimenters', { latitude: 43.46, longitude: -3.81 });
    const id = 'urn:oc:entity:experimenters:5c1a8e:exp-2018-air:phone:42';
    const created = await create(p, token, assetBody(id, { location: { type: 'geo:point', value: '43.47, -3.80' } }, 'urn:oc:entityType:smartphone'));
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(created.headers.location, `/v2/entities/${id}?type=urn:oc:entityType:smartphone`);
    const row = await assetRow(p, id);
    assert.deepEqual([row?.site, row?.experimenter, row?.experiment, row?.name, row?.service, row?.provider, row?.grp], ['experimenters', '5c1a8e', 'exp-2018-air', 'phone:42', null, null, null]);
    assert.equal((await update(p, token, id, { TimeInstant: timeInstant(), noise: { type: 'Number', value: 61 } })).statusCode, 204);
    assert.equal((await read(p, token, id)).json().noise.value, 61);
    assert.deepEqual((await countsOf(p, 'experimenters')).map((c) => [c.service, c.provider, c.assets]), [['', '', 1]]);
    assert.equal((await remove(p, token, id)).statusCode, 204);

    const short = await create(p, token, assetBody('urn:oc:entity:experimenters:5c1a8e:phone'));
    assert.equal(short.statusCode, 400);
    assert.equal(short.json().description, 'Asset.id of the experimenters site must be urn:oc:entity:experimenters:<experimenterId>:<experimentId>:<name>');
    // A city site cannot write experimenters' assets, nor the reverse.
    const santander = await p.siteToken('santander');
    assert.equal((await create(p, santander, assetBody('urn:oc:entity:experimenters:a:b:c'))).statusCode, 400);
    assert.equal((await create(p, token, assetBody('urn:oc:entity:santander:a:b:c'))).statusCode, 400);
  });
});

describeEachStore('federation: two server processes on one database', (platform) => {
  it('hold the quota and create-once between them', async () => {
    const p = platform();
    const token = await p.siteToken('twins', { latitude: 1, longitude: 1, quota: 5 });
    // A second platform on the same database: its own connections and write pipeline, as another process has.
    const other = Store.open(p.db.url);
    const { app: second } = await buildApp({ config: p.ctx.config, store: other, clock: p.clock, migrate: false });
    try {
      const apps = [p.app, second];
      const send = (n: number, body: unknown) => apps[n % 2]!.inject({ method: 'POST', url: '/federation/v2/entities', headers: writeHeaders(token), payload: JSON.stringify(body) });

      const same = await Promise.all(Array.from({ length: 16 }, (_, n) => send(n, assetBody('urn:oc:entity:twins:env:a:same'))));
      assert.deepEqual(same.map((r) => r.statusCode).sort(), [201, ...Array(15).fill(422)]);

      const many = await Promise.all(Array.from({ length: 16 }, (_, n) => send(n, assetBody(`urn:oc:entity:twins:env:b:${n}`))));
      assert.deepEqual(many.map((r) => r.statusCode).sort(), [201, 201, 201, 201, ...Array(12).fill(400)]);
      assert.equal((await countsOf(p, 'twins')).reduce((n, c) => n + c.assets, 0), 5);

      // Updates of one asset from both: none is lost.
      const id = 'urn:oc:entity:twins:env:a:same';
      const updates = await Promise.all(Array.from({ length: 16 }, (_, n) => apps[n % 2]!.inject({
        method: 'POST', url: `/federation/v2/entities/${id}/attrs`, headers: writeHeaders(token),
        payload: JSON.stringify({ TimeInstant: timeInstant(), [`a${n}`]: { type: 'Number', value: n } }),
      })));
      assert.deepEqual(updates.map((r) => r.statusCode), Array(16).fill(204));
      const entity = (await read(p, token, id)).json();
      for (let n = 0; n < 16; n++) assert.equal(entity[`a${n}`]?.value, n, `a${n}`);
    } finally {
      await second.close();
      await other.close();
    }
  });
});
