import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { assetBody, create, timeInstant, update } from '../helpers/federation.js';
import { describeEachStore } from '../helpers/platform.js';

/**
 * Discovery keeps recent public answers until anything is committed
 * (src/http/answer-cache.ts): asked again and again, a URL gets
 * the same bytes and headers; after any write, never the answer from before it.
 */
describeEachStore('discovery answers asked again', (platform) => {
  let site = '';
  const get = (url: string) => platform().app.inject({ method: 'GET', url: `/discovery/v0${url}` });
  const id = (n: number) => `urn:oc:entity:cachetown:environmental:fixed:${n}`;

  before(async () => {
    site = await platform().siteToken('cachetown');
    assert.equal((await create(platform(), site, assetBody(id(1)))).statusCode, 201);
  });

  it('gives a URL asked three times the same body and headers each time', async () => {
    const answers = [await get('/assets?per=5&sort=id'), await get('/assets?per=5&sort=id'), await get('/assets?per=5&sort=id')];
    for (const res of answers) {
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, answers[0]!.body);
      assert.equal(res.headers['x-total-count'], '1');
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
    assert.deepEqual(answers[0]!.json().map((a: { id: string }) => a.id), [id(1)]);
  });

  it('never gives an answer from before a write, however often the URL was asked', async () => {
    for (let n = 2; n <= 4; n++) {
      assert.equal((await get('/assets?per=5&sort=id')).json().length, n - 1);
      assert.equal((await get('/assets?per=5&sort=id')).json().length, n - 1);
      assert.equal((await create(platform(), site, assetBody(id(n)))).statusCode, 201);
      const after = await get('/assets?per=5&sort=id');
      assert.equal(after.json().length, n);
      assert.equal(after.headers['x-total-count'], String(n));
    }
    const sites = async () => ((await get('/assets/sites')).json() as Array<{ id: string; attributes: { assets: number } }>).find((s) => s.id === 'cachetown')?.attributes.assets;
    assert.equal(await sites(), 4);
    assert.equal(await sites(), 4);
    assert.equal((await create(platform(), site, assetBody(id(5)))).statusCode, 201);
    assert.equal(await sites(), 5);
  });

  it('shows an asset\'s latest values after each update', async () => {
    for (const value of [21, 22, 23]) {
      const body = { TimeInstant: timeInstant(`2017-07-25T14:${value}:00.000Z`), temperature: { type: 'Number', value } };
      assert.equal((await update(platform(), site, id(1), body)).statusCode, 204);
      for (let k = 0; k < 2; k++) {
        const res = await get(`/assets/${encodeURIComponent(id(1))}`);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().data.attributes.data.temperature.value, String(value));
      }
    }
  });

  it('gives the requests that arrive together after a write one fresh answer, read once for all of them', async () => {
    const url = '/assets?per=50&sort=id&order=desc';
    await get(url);
    await get(url);
    const before = (await get(url)).json().length as number;
    assert.equal((await create(platform(), site, assetBody(id(100)))).statusCode, 201);
    const together = await Promise.all(Array.from({ length: 20 }, () => get(url)));
    for (const res of together) {
      assert.equal(res.statusCode, 200);
      assert.equal(res.body, together[0]!.body);
      assert.equal(res.json().length, before + 1, 'the asset created before they arrived is there');
    }
  });

  it('lets each of the requests that arrive together read for itself when the first read keeps nothing', async () => {
    const url = `/assets/${encodeURIComponent(id(999))}`;
    await get(url);
    await get(url);
    const together = await Promise.all(Array.from({ length: 10 }, () => get(url)));
    for (const res of together) {
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'NotFound');
    }
    assert.equal((await create(platform(), site, assetBody(id(999)))).statusCode, 201);
    assert.equal((await get(url)).statusCode, 200);
  });
});
