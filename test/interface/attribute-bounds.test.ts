import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_NESTING } from '../../src/domain/attribute-bounds.js';
import { parseAssetUrn } from '../../src/domain/urn.js';
import { assetBody, assetRow, BASE, create, entityUrl, read, readingsOf, timeInstant, update, writeHeaders } from '../helpers/federation.js';
import { storeDigest } from '../helpers/hardening-fuzz.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';

/**
 * Bounds on what one asset carries: values and metadata nest at most
 * MAX_NESTING levels, an asset has at most MAX_ATTRIBUTES attributes. Beyond,
 * the write is refused with a 400 naming the attribute (never a 500, whatever
 * the depth), and nothing of it is stored; on every write path, a batch or a
 * notification naming the entity and the bound in its 422. A value too deep for SQLite's JSON
 * functions, stored before the bound, no longer fails metadata search.
 */

const SITE = 'santander';
const TYPE = 'urn:oc:entityType:iotdevice';
const id = (name: string) => `urn:oc:entity:${SITE}:environment:bounds:${name}`;
/** MAX_ATTRIBUTES's default, and the refusal of an asset beyond it. */
const max = 256;
const tooMany = `An asset has at most ${max} attributes (MAX_ATTRIBUTES), TimeInstant included`;

/** The text of an array nested `levels` deep (`[]` is one level). */
const nestedText = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const nested = (levels: number): unknown => JSON.parse(nestedText(levels));
/** A body as text, with DEEP standing for a value nested `levels` deep (stringifying such a value would overflow this process's stack). */
const withDeep = (body: unknown, levels: number): string => JSON.stringify(body).replace('"DEEP"', nestedText(levels));

/** A create or an update whose body is given as text. */
const createText = (p: TestPlatform, token: string, payload: string) => p.app.inject({ method: 'POST', url: BASE, headers: writeHeaders(token), payload });
const updateText = (p: TestPlatform, token: string, assetId: string, payload: string) =>
  p.app.inject({ method: 'POST', url: entityUrl(assetId, '/attrs'), headers: writeHeaders(token), payload });

type Res = { statusCode: number; body: string; headers: Record<string, unknown>; json(): unknown };

function refused(res: Res, description: string): void {
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.deepEqual(res.json(), { error: 'BadRequest', description });
}

/** `count` attributes, TimeInstant included. */
function attributes(count: number, prefix = 'a'): Record<string, unknown> {
  const out: Record<string, unknown> = { TimeInstant: timeInstant() };
  for (let i = 1; i < count; i++) out[`${prefix}${i}`] = { type: 'Number', value: i };
  return out;
}

/** The same `count` attributes as `options=keyValues` sends them. */
function keyValues(count: number, prefix = 'a'): Record<string, unknown> {
  const out: Record<string, unknown> = { TimeInstant: timeInstant().value };
  for (let i = 1; i < count; i++) out[`${prefix}${i}`] = i;
  return out;
}

describeEachStore('attribute bounds: nesting of values and metadata', (platform) => {
  let token: string;
  const p = (): TestPlatform => platform();
  const tokenOf = async () => (token ??= await p().siteToken(SITE));

  it(`accepts a value and metadata nested ${MAX_NESTING} levels deep, and gives them back as sent`, async () => {
    const body = assetBody(id('deepest'), { shape: { type: 'Json', value: nested(MAX_NESTING), metadata: { m: { type: 'Json', value: nested(MAX_NESTING - 2) } } } });
    const res = await create(p(), await tokenOf(), body);
    assert.equal(res.statusCode, 201, res.body);
    const got = (await read(p(), await tokenOf(), id('deepest'))).json() as Record<string, { value: unknown; metadata: Record<string, { value: unknown }> }>;
    assert.deepEqual(got.shape?.value, nested(MAX_NESTING));
    assert.deepEqual(got.shape?.metadata.m?.value, nested(MAX_NESTING - 2));
  });

  it('refuses a create whose value nests one level too deep, or 5,000 or 100,000 levels: 400 naming the attribute, nothing stored', async () => {
    for (const levels of [MAX_NESTING + 1, 5_000, 100_000]) {
      const res = await createText(p(), await tokenOf(), withDeep(assetBody(id(`deep${levels}`), { shape: { type: 'Json', value: 'DEEP' } }), levels));
      refused(res, `Asset attribute shape.value is nested more than ${MAX_NESTING} levels deep`);
      assert.equal(await assetRow(p(), id(`deep${levels}`)), undefined);
    }
  });

  it('refuses metadata nested too deep, in a create and in an update', async () => {
    const metadata = { unit: { type: 'Json', value: 'DEEP' } };
    refused(await createText(p(), await tokenOf(), withDeep(assetBody(id('deepmeta'), { speed: { type: 'Number', value: 1, metadata } }), 5_000)),
      `Asset attribute speed.metadata is nested more than ${MAX_NESTING} levels deep`);
    assert.equal(await assetRow(p(), id('deepmeta')), undefined);
    assert.equal((await create(p(), await tokenOf(), assetBody(id('meta')))).statusCode, 201);
    const before = await readingsOf(p(), id('meta'));
    refused(await updateText(p(), await tokenOf(), id('meta'), withDeep({ TimeInstant: timeInstant(), speed: { type: 'Number', value: 1, metadata } }, 5_000)),
      `Asset attribute speed.metadata is nested more than ${MAX_NESTING} levels deep`);
    assert.deepEqual(await readingsOf(p(), id('meta')), before);
  });

  it('refuses an update whose value nests too deep: 400, the asset and its history unchanged', async () => {
    assert.equal((await create(p(), await tokenOf(), assetBody(id('updated')))).statusCode, 201);
    const row = await assetRow(p(), id('updated'));
    const before = await readingsOf(p(), id('updated'));
    for (const levels of [MAX_NESTING + 1, 5_000]) {
      refused(await updateText(p(), await tokenOf(), id('updated'), withDeep({ TimeInstant: timeInstant(), temperature: { type: 'Number', value: 'DEEP' } }, levels)),
        `Asset attribute temperature.value is nested more than ${MAX_NESTING} levels deep`);
    }
    assert.deepEqual(await assetRow(p(), id('updated')), row);
    assert.deepEqual(await readingsOf(p(), id('updated')), before);
  });

  it('keeps metadata search and NGSI v2 queries working beside an asset stored with a value 999 levels deep', async () => {
    // Written through the store, as a store written before the bound may hold it.
    const deepId = id('legacydeep');
    await p().ctx.store.writes.write({ kind: 'create', input: {
      asset: {
        id: deepId, type: TYPE, urn: parseAssetUrn(deepId, SITE), position: undefined, recordedAt: p().clock.now(), receivedAt: p().clock.now(),
        attributes: Object.assign(Object.create(null) as Record<string, never>, {
          TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2017-07-25T13:35:00.000Z', metadata: {} },
          findme: { type: 'Json', value: nested(999), metadata: { unit: { type: 'Text', value: 'findme' } } },
        }),
      },
      registerType: true, defaultQuota: 1000,
    } });
    assert.equal((await create(p(), await tokenOf(), assetBody(id('shallow'), { level: { type: 'Number', value: 1, metadata: { unit: { type: 'Text', value: 'findme' } } } }))).statusCode, 201);
    for (const url of ['/discovery/v0/assets/metadata/search?query=findme&per=100', '/discovery/v0/assets/ngsiv2?query=findme&per=100']) {
      const res = await p().app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.ok(res.body.includes(id('shallow')), `${url} finds the asset whose metadata holds the word`);
    }
    // Still found by what the store can read of it: its id.
    const byId = await p().app.inject({ method: 'GET', url: '/discovery/v0/assets/metadata/search?query=legacydeep&per=100' });
    assert.equal(byId.statusCode, 200, byId.body);
    assert.ok(byId.body.includes(deepId));
  });
});

describeEachStore('attribute bounds: attributes per asset (MAX_ATTRIBUTES)', (platform) => {
  let token: string;
  const p = (): TestPlatform => platform();
  const tokenOf = async () => (token ??= await p().siteToken(SITE));

  it(`accepts an asset of ${max} attributes, TimeInstant included, and refuses ${max + 1} or 10,000: 400, nothing stored`, async () => {
    const res = await create(p(), await tokenOf(), { id: id('widest'), type: TYPE, ...attributes(max) });
    assert.equal(res.statusCode, 201, res.body);
    for (const count of [max + 1, 10_000]) {
      refused(await create(p(), await tokenOf(), { id: id(`wide${count}`), type: TYPE, ...attributes(count) }), tooMany);
      assert.equal(await assetRow(p(), id(`wide${count}`)), undefined);
    }
  });

  it('refuses an update that would take the asset beyond the bound, counting the attributes it keeps; updating those it has stays allowed', async () => {
    assert.equal((await create(p(), await tokenOf(), { id: id('growing'), type: TYPE, ...attributes(max - 1) })).statusCode, 201);
    const before = await readingsOf(p(), id('growing'));
    const row = await assetRow(p(), id('growing'));
    refused(await update(p(), await tokenOf(), id('growing'), { TimeInstant: timeInstant(), b1: { type: 'Number', value: 1 }, b2: { type: 'Number', value: 2 } }), tooMany);
    refused(await update(p(), await tokenOf(), id('growing'), attributes(10_000, 'c')), tooMany);
    assert.deepEqual(await readingsOf(p(), id('growing')), before);
    assert.deepEqual(await assetRow(p(), id('growing')), row);
    // One more attribute reaches the bound; rewriting every attribute it has is within it.
    assert.equal((await update(p(), await tokenOf(), id('growing'), { TimeInstant: timeInstant(), b1: { type: 'Number', value: 1 } })).statusCode, 204);
    assert.equal((await update(p(), await tokenOf(), id('growing'), { ...attributes(max - 1), b1: { type: 'Number', value: 2 } })).statusCode, 204);
    refused(await update(p(), await tokenOf(), id('growing'), { TimeInstant: timeInstant(), b2: { type: 'Number', value: 1 } }), tooMany);
  });
});

describeEachStore('attribute bounds: the history of a wide asset', (platform) => {
  it('is read a page at a time (1,000 readings at most), whatever the width of the asset', async () => {
    const p = platform();
    const token = await p.siteToken(SITE);
    const wide = id('widehistory');
    assert.equal((await create(p, token, { id: wide, type: TYPE, ...attributes(256) })).statusCode, 201);
    for (let i = 0; i < 4; i++) assert.equal((await update(p, token, wide, attributes(256))).statusCode, 204);
    const page = async (query: string) => {
      const res = await p.app.inject({ method: 'GET', url: `/datasource/${encodeURIComponent(wide)}/readings${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { readings: unknown[] }).readings.length;
    };
    assert.equal(await page(''), 1000);
    assert.equal(await page('?offset=1000'), 5 * 256 - 1000);
  });
});

describeEachStore('attribute bounds: MAX_ATTRIBUTES set lower', (platform) => {
  it('refuses beyond the configured bound', async () => {
    const p = platform();
    const token = await p.siteToken(SITE);
    assert.equal((await create(p, token, { id: id('four'), type: TYPE, ...attributes(4) })).statusCode, 201);
    refused(await create(p, token, { id: id('five'), type: TYPE, ...attributes(5) }), 'An asset has at most 4 attributes (MAX_ATTRIBUTES), TimeInstant included');
    refused(await update(p, token, id('four'), { TimeInstant: timeInstant(), extra: { type: 'Number', value: 1 } }), 'An asset has at most 4 attributes (MAX_ATTRIBUTES), TimeInstant included');
  });
}, { maxAttributes: 4 });

/**
 * The same bounds on the other write paths: the batch operation (POST /v2/op/update, every action
 * type that writes attributes), the notification an Orion broker posts (POST /v2/op/notify), PUT
 * …/attrs/{attr} and …/attrs/{attr}/value, PATCH and PUT …/attrs, options=keyValues and
 * options=upsert. A single write is a 400 naming the attribute; a batch or a notification, which
 * names each entity it could not write (Orion's batch answer), is a 422 naming the entity and the
 * attribute or the bound. Nothing of a refused write is stored: the digest of every row of every
 * table is the same after it.
 */
describeEachStore('attribute bounds on every write path', (platform) => {
  let token: string;
  const p = (): TestPlatform => platform();
  const tokenOf = async () => (token ??= await p().siteToken(SITE));
  const tooDeep = (attr: string, part: 'value' | 'metadata' = 'value') => `Asset attribute ${attr}.${part} is nested more than ${MAX_NESTING} levels deep`;
  const LEVELS = [MAX_NESTING + 1, 5_000];

  const send = async (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: string) =>
    p().app.inject({ method, url, headers: writeHeaders(await tokenOf()), payload });
  const batch = (body: string, query = '') => send('POST', `/federation/v2/op/update${query}`, body);
  const notify = (body: string) => send('POST', '/federation/v2/op/notify', body);

  /** A batch or a notification none of whose entities was written: 422 naming the entity and why. */
  function refusedInBatch(res: Res, entity: string, reason: string): void {
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.deepEqual(res.json(), { error: 'Unprocessable', description: `not valid: ${entity}/${TYPE} (${reason})` });
  }

  /** Runs a refused write and checks that the store holds exactly what it held before it. */
  async function storesNothing(write: () => Promise<void>): Promise<void> {
    const before = await storeDigest(p().ctx.store);
    await write();
    const after = await storeDigest(p().ctx.store);
    assert.deepEqual(after.rows, before.rows);
    assert.equal(after.digest, before.digest);
  }

  const existing = id('paths');
  const fresh = id('paths-new');
  const deepMeta = { m: { type: 'Json', value: 'DEEP' } };

  it('refuses a value or metadata nested too deep in a batch append or update, new entity or existing: 422 naming entity and attribute, nothing stored', async () => {
    assert.equal((await create(p(), await tokenOf(), assetBody(existing, { shape: { type: 'Json', value: [] } }))).statusCode, 201);
    for (const levels of LEVELS) {
      await storesNothing(async () => {
        refusedInBatch(await batch(withDeep({ actionType: 'append', entities: [{ id: fresh, type: TYPE, TimeInstant: timeInstant(), shape: { type: 'Json', value: 'DEEP' } }] }, levels)),
          fresh, tooDeep('shape'));
        refusedInBatch(await batch(withDeep({ actionType: 'append', entities: [{ id: existing, type: TYPE, TimeInstant: timeInstant(), shape: { type: 'Json', value: 'DEEP' } }] }, levels)),
          existing, tooDeep('shape'));
        refusedInBatch(await batch(withDeep({ actionType: 'append', entities: [{ id: existing, type: TYPE, TimeInstant: timeInstant(), level: { type: 'Number', value: 1, metadata: deepMeta } }] }, levels)),
          existing, tooDeep('level', 'metadata'));
        refusedInBatch(await batch(withDeep({ actionType: 'update', entities: [{ id: existing, type: TYPE, TimeInstant: timeInstant(), temperature: { type: 'Json', value: 'DEEP' } }] }, levels)),
          existing, tooDeep('temperature'));
        refusedInBatch(await batch(withDeep({ actionType: 'update', entities: [{ id: existing, type: TYPE, TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1, metadata: deepMeta } }] }, levels)),
          existing, tooDeep('temperature', 'metadata'));
        refusedInBatch(await batch(withDeep({ actionType: 'update', entities: [{ id: existing, type: TYPE, TimeInstant: { ...timeInstant(), metadata: deepMeta } }] }, levels)),
          existing, tooDeep('TimeInstant', 'metadata'));
        refusedInBatch(await batch(withDeep({ actionType: 'append', entities: [{ id: fresh, type: TYPE, TimeInstant: timeInstant().value, shape: 'DEEP' }] }, levels), '?options=keyValues'),
          fresh, tooDeep('shape'));
      });
    }
  });

  it('stores the valid entities of a batch and names the one nested too deep: 422 PartialUpdate', async () => {
    const valid = id('paths-valid');
    const res = await batch(withDeep({ actionType: 'append', entities: [
      { id: valid, type: TYPE, TimeInstant: timeInstant(), level: { type: 'Number', value: 1 } },
      { id: fresh, type: TYPE, TimeInstant: timeInstant(), shape: { type: 'Json', value: 'DEEP' } },
    ] }, 5_000));
    assert.equal(res.statusCode, 422, res.body);
    assert.deepEqual(res.json(), { error: 'PartialUpdate', description: `not valid: ${fresh}/${TYPE} (${tooDeep('shape')})` });
    assert.ok(await assetRow(p(), valid));
    assert.equal(await assetRow(p(), fresh), undefined);
  });

  it('refuses a notification whose entity nests too deep, new or existing: 422 naming entity and attribute, nothing stored', async () => {
    for (const levels of LEVELS) {
      await storesNothing(async () => {
        refusedInBatch(await notify(withDeep({ subscriptionId: 's', data: [{ id: fresh, type: TYPE, TimeInstant: timeInstant(), shape: { type: 'Json', value: 'DEEP' } }] }, levels)),
          fresh, tooDeep('shape'));
        refusedInBatch(await notify(withDeep({ subscriptionId: 's', data: [{ id: existing, type: TYPE, TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1, metadata: deepMeta } }] }, levels)),
          existing, tooDeep('temperature', 'metadata'));
      });
    }
  });

  it('refuses PUT …/attrs/{attr} and …/attrs/{attr}/value nested too deep: 400 naming the attribute, nothing stored', async () => {
    for (const levels of LEVELS) {
      await storesNothing(async () => {
        refused(await send('PUT', entityUrl(existing, '/attrs/temperature'), withDeep({ type: 'Json', value: 'DEEP' }, levels)), tooDeep('temperature'));
        refused(await send('PUT', entityUrl(existing, '/attrs/temperature'), withDeep({ type: 'Number', value: 1, metadata: deepMeta }, levels)), tooDeep('temperature', 'metadata'));
        refused(await send('PUT', entityUrl(existing, '/attrs/temperature/value'), nestedText(levels)), tooDeep('temperature'));
      });
    }
  });

  it('refuses PATCH and PUT …/attrs nested too deep, in normalized and keyValues form: 400 naming the attribute, nothing stored', async () => {
    for (const levels of LEVELS) {
      await storesNothing(async () => {
        for (const method of ['PATCH', 'PUT'] as const) {
          refused(await send(method, entityUrl(existing, '/attrs'), withDeep({ TimeInstant: timeInstant(), temperature: { type: 'Json', value: 'DEEP' } }, levels)), tooDeep('temperature'));
          refused(await send(method, entityUrl(existing, '/attrs'), withDeep({ TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1, metadata: deepMeta } }, levels)), tooDeep('temperature', 'metadata'));
          refused(await send(method, entityUrl(existing, '/attrs?options=keyValues'), withDeep({ TimeInstant: timeInstant().value, temperature: 'DEEP' }, levels)), tooDeep('temperature'));
        }
        refused(await send('POST', entityUrl(existing, '/attrs?options=keyValues'), withDeep({ TimeInstant: timeInstant().value, shape: 'DEEP' }, levels)), tooDeep('shape'));
      });
    }
  });

  it('refuses a create with options=keyValues or options=upsert nested too deep, new entity or existing: 400 naming the attribute, nothing stored', async () => {
    for (const levels of LEVELS) {
      await storesNothing(async () => {
        refused(await send('POST', `${BASE}?options=keyValues`, withDeep({ id: fresh, type: TYPE, TimeInstant: timeInstant().value, shape: 'DEEP' }, levels)), tooDeep('shape'));
        for (const target of [fresh, existing]) {
          refused(await send('POST', `${BASE}?options=upsert`, withDeep({ id: target, type: TYPE, TimeInstant: timeInstant(), shape: { type: 'Json', value: 'DEEP' } }, levels)), tooDeep('shape'));
          refused(await send('POST', `${BASE}?options=upsert`, withDeep({ id: target, type: TYPE, TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1, metadata: deepMeta } }, levels)), tooDeep('temperature', 'metadata'));
          refused(await send('POST', `${BASE}?options=upsert,keyValues`, withDeep({ id: target, type: TYPE, TimeInstant: timeInstant().value, shape: 'DEEP' }, levels)), tooDeep('shape'));
        }
      });
    }
  });

  it(`refuses more than ${max} attributes in a batch (every action type that writes them) and in a notification: 422 naming entity and bound, nothing stored`, async () => {
    const full = id('paths-full');
    // One attribute short of the bound: two more take it beyond.
    assert.equal((await create(p(), await tokenOf(), { id: full, type: TYPE, ...attributes(max - 1) })).statusCode, 201);
    const twoMore = { TimeInstant: timeInstant(), b1: { type: 'Number', value: 1 }, b2: { type: 'Number', value: 2 } };
    await storesNothing(async () => {
      for (const count of [max + 1, 10_000]) {
        refusedInBatch(await batch(JSON.stringify({ actionType: 'append', entities: [{ id: fresh, type: TYPE, ...attributes(count) }] })), fresh, tooMany);
        refusedInBatch(await batch(JSON.stringify({ actionType: 'append', entities: [{ id: fresh, type: TYPE, ...keyValues(count) }] }), '?options=keyValues'), fresh, tooMany);
        refusedInBatch(await batch(JSON.stringify({ actionType: 'replace', entities: [{ id: full, type: TYPE, ...attributes(count) }] })), full, tooMany);
        refusedInBatch(await batch(JSON.stringify({ actionType: 'update', entities: [{ id: full, type: TYPE, ...attributes(count) }] })), full, tooMany);
        refusedInBatch(await notify(JSON.stringify({ subscriptionId: 's', data: [{ id: fresh, type: TYPE, ...attributes(count) }] })), fresh, tooMany);
      }
      // Counting the attributes the asset keeps.
      refusedInBatch(await batch(JSON.stringify({ actionType: 'append', entities: [{ id: full, type: TYPE, ...twoMore }] })), full, tooMany);
      refusedInBatch(await batch(JSON.stringify({ actionType: 'appendStrict', entities: [{ id: full, type: TYPE, ...twoMore }] })), full, tooMany);
      refusedInBatch(await notify(JSON.stringify({ subscriptionId: 's', data: [{ id: full, type: TYPE, ...twoMore }] })), full, tooMany);
    });
  });

  it(`refuses more than ${max} attributes through PATCH and PUT …/attrs, keyValues and upsert: 400 naming the bound, nothing stored`, async () => {
    const full = id('paths-full');
    const twoMore = { TimeInstant: timeInstant(), b1: { type: 'Number', value: 1 }, b2: { type: 'Number', value: 2 } };
    await storesNothing(async () => {
      for (const count of [max + 1, 10_000]) {
        refused(await send('PATCH', entityUrl(full, '/attrs'), JSON.stringify(attributes(count))), tooMany);
        refused(await send('PUT', entityUrl(full, '/attrs'), JSON.stringify(attributes(count))), tooMany);
        refused(await send('PUT', entityUrl(full, '/attrs?options=keyValues'), JSON.stringify(keyValues(count))), tooMany);
        refused(await send('POST', `${BASE}?options=keyValues`, JSON.stringify({ id: fresh, type: TYPE, ...keyValues(count) })), tooMany);
        for (const target of [fresh, full]) refused(await send('POST', `${BASE}?options=upsert`, JSON.stringify({ id: target, type: TYPE, ...attributes(count) })), tooMany);
      }
      // Counting the attributes the asset keeps.
      refused(await send('POST', `${BASE}?options=upsert`, JSON.stringify({ id: full, type: TYPE, ...twoMore })), tooMany);
      refused(await send('POST', entityUrl(full, '/attrs?options=keyValues'), JSON.stringify({ TimeInstant: timeInstant().value, b1: 1, b2: 2 })), tooMany);
      // PUT …/attrs/{attr} replaces an attribute the asset has, so it cannot widen it.
      assert.equal((await send('PUT', entityUrl(full, '/attrs/b1'), JSON.stringify({ type: 'Number', value: 1 }))).statusCode, 404);
    });
    // Replacing every attribute with as many as the bound is within it.
    assert.equal((await send('PUT', entityUrl(full, '/attrs'), JSON.stringify(attributes(max, 'c')))).statusCode, 204);
  });
});
