import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { Change } from '../../src/domain/changes.js';
import { Store } from '../../src/storage/store.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { assetBody, create, remove, timeInstant, update, writeHeaders } from '../helpers/federation.js';
import { describeEachStore } from '../helpers/platform.js';

const TYPE = 'urn:oc:entityType:iotdevice';
const A = 'urn:oc:entity:santander:environment:log:a';
const B = 'urn:oc:entity:santander:environment:log:b';

/** A change as a test expects it, without its seq. */
const bare = ({ seq: _seq, ...rest }: Change) => rest;

describeEachStore('change log', (platform) => {
  it('records every acknowledged write, in commit order, with the attributes it set and the time of the write', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const start = p.clock.now();
    assert.equal((await create(p, token, assetBody(A))).statusCode, 201);
    p.clock.advance(1000);
    assert.equal((await create(p, token, assetBody(B, { location: { type: 'geo:point', value: '43.46, -3.81' } }))).statusCode, 201);
    p.clock.advance(1000);
    const changed = { TimeInstant: timeInstant('2017-07-25T13:40:00.000Z'), temperature: { type: 'Number', value: 22, metadata: { accuracy: { type: 'Number', value: 0.5 } } } };
    assert.equal((await update(p, token, A, changed)).statusCode, 204);
    p.clock.advance(1000);
    assert.equal((await remove(p, token, B)).statusCode, 204);

    const changes = await p.ctx.store.changes.after(0);
    assert.deepEqual(changes.map(bare), [
      {
        assetId: A, assetType: TYPE, site: 'santander', kind: 'create', at: start,
        attributes: { TimeInstant: { ...timeInstant(), metadata: {} }, temperature: { type: 'Number', value: 21.5, metadata: {} } },
      },
      {
        assetId: B, assetType: TYPE, site: 'santander', kind: 'create', at: start + 1000,
        attributes: {
          TimeInstant: { ...timeInstant(), metadata: {} }, temperature: { type: 'Number', value: 21.5, metadata: {} },
          location: { type: 'geo:point', value: '43.46, -3.81', metadata: {} },
        },
      },
      {
        assetId: A, assetType: TYPE, site: 'santander', kind: 'update', at: start + 2000,
        attributes: { TimeInstant: { ...timeInstant('2017-07-25T13:40:00.000Z'), metadata: {} }, temperature: changed.temperature },
      },
      { assetId: B, assetType: TYPE, site: 'santander', kind: 'delete', at: start + 3000, attributes: {} },
    ]);
    const seqs = changes.map((c) => c.seq);
    assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
    assert.equal(new Set(seqs).size, seqs.length);
    assert.equal(await p.ctx.store.changes.latest(), seqs.at(-1));
  });

  it('records nothing for a refused write: duplicate id, quota, bad TimeInstant, unknown asset, wrong type', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const quotaToken = await p.siteToken('patras', { latitude: 38.24, longitude: 21.73, quota: 0 });
    const before = await p.ctx.store.changes.latest();
    const refused = [
      await create(p, token, assetBody(A)),
      await create(p, quotaToken, assetBody('urn:oc:entity:patras:environment:log:q')),
      await create(p, token, assetBody('urn:oc:entity:santander:environment:log:c', { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: 'yesterday' } })),
      await update(p, token, 'urn:oc:entity:santander:environment:log:none', { TimeInstant: timeInstant() }),
      await update(p, token, A, { TimeInstant: timeInstant() }, {}, '?type=urn:oc:entityType:other'),
      await remove(p, token, B),
    ];
    assert.deepEqual(refused.map((r) => r.statusCode), [422, 400, 400, 404, 404, 404]);
    assert.equal(await p.ctx.store.changes.latest(), before);
    assert.deepEqual(await p.ctx.store.changes.after(before), []);
  });

  it('records only the writes that succeed among requests committed together', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const before = await p.ctx.store.changes.latest();
    const ids = Array.from({ length: 6 }, (_, i) => `urn:oc:entity:santander:environment:together:${i}`);
    // Arriving in one turn, they share a batch: creates, an existing id, updates of created and unknown assets.
    const answers = await Promise.all([
      ...ids.map((id) => create(p, token, assetBody(id))),
      create(p, token, assetBody(A)),
      update(p, token, A, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 30 } }),
      update(p, token, 'urn:oc:entity:santander:environment:together:none', { TimeInstant: timeInstant() }),
    ]);
    assert.deepEqual(answers.map((r) => r.statusCode), [201, 201, 201, 201, 201, 201, 422, 204, 404]);
    const changes = await p.ctx.store.changes.after(before);
    assert.deepEqual(changes.map((c) => `${c.kind} ${c.assetId}`).sort(), [...ids.map((id) => `create ${id}`), `update ${A}`].sort());
    assert.equal(changes.find((c) => c.kind === 'update')?.attributes.temperature?.value, 30);
  });

  it('keeps attribute values exactly as written: quotes, backslashes, line breaks and other scripts', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const before = await p.ctx.store.changes.latest();
    const text = `it's "quoted" \\ back\\slashed\nnext line; ünïcödé 東京 🚲 $1 %s E'x'`;
    const note = { type: 'Text', value: text, metadata: { source: { type: 'Text', value: "O'Brien \\N" } } };
    assert.equal((await update(p, token, A, { TimeInstant: timeInstant(), note })).statusCode, 204);
    const [change] = await p.ctx.store.changes.after(before);
    assert.deepEqual(change?.attributes.note, note);
  });

  it('pages changes in seq order, at most 1,000 at a time', async () => {
    const p = platform();
    const all = await p.ctx.store.changes.after(0);
    assert.ok(all.length >= 10);
    const [first, second] = [await p.ctx.store.changes.after(0, 3), await p.ctx.store.changes.after(all[2]!.seq, 3)];
    assert.deepEqual([...first, ...second].map((c) => c.seq), all.slice(0, 6).map((c) => c.seq));
    assert.equal((await p.ctx.store.changes.after(0, 5000)).length, all.length);
    assert.deepEqual(await p.ctx.store.changes.after(all.at(-1)!.seq), []);
  });

  it('wakes a reader waiting for the next change when a write commits, and tells one that waited in vain', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const last = await p.ctx.store.changes.latest();
    assert.equal(await p.ctx.store.changes.waitAfter(last - 1, 60_000), true, 'a change after last - 1 is already known');
    assert.equal(await p.ctx.store.changes.waitAfter(last, 1), false);
    const waiting = p.ctx.store.changes.waitAfter(last, 60_000);
    assert.equal((await update(p, token, A, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 31 } })).statusCode, 204);
    assert.equal(await waiting, true);
    assert.deepEqual((await p.ctx.store.changes.after(last)).map((c) => [c.kind, c.assetId]), [['update', A]]);
  });

  it('lets a reader on another connection to the store learn of the changes committed here', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const other = Store.open(p.db.url);
    try {
      const last = await other.changes.latest();
      const waiting = other.changes.waitAfter(last, 60_000);
      assert.equal((await update(p, token, A, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 32 } })).statusCode, 204);
      assert.equal(await waiting, true);
      const seen = await other.changes.after(last);
      assert.deepEqual(seen.map((c) => [c.kind, c.assetId, c.attributes.temperature?.value]), [['update', A, 32]]);
    } finally {
      await other.close();
    }
  });

  it('prunes the changes older than a time, and numbers later changes after every pruned one', async () => {
    const p = platform();
    const last = await p.ctx.store.changes.latest();
    p.clock.advance(3_600_000);
    const cut = p.clock.now();
    // Tokens live minutes: one of this hour.
    const token = await p.siteToken('santander');
    assert.equal((await update(p, token, A, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 33 } })).statusCode, 204);
    const kept = await p.ctx.store.changes.after(last);
    const pruned = await p.ctx.store.changes.prune(cut);
    assert.ok(pruned > 0);
    assert.deepEqual(await p.ctx.store.changes.after(0), kept);
    assert.equal(await p.ctx.store.changes.prune(cut), 0);
    // Everything pruned: the next change still comes after the last one ever numbered.
    p.clock.advance(1000);
    assert.ok((await p.ctx.store.changes.prune(p.clock.now())) > 0);
    assert.deepEqual(await p.ctx.store.changes.after(0), []);
    assert.equal((await update(p, token, A, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 34 } })).statusCode, 204);
    const [next] = await p.ctx.store.changes.after(0);
    assert.ok(next && next.seq > kept.at(-1)!.seq, `${next?.seq} after ${kept.at(-1)?.seq}`);
  });

  it('records nothing with the change log off (CHANGE_LOG=off)', async () => {
    const p = platform();
    const store = Store.open(p.db.url, { changeLog: false });
    const clock = new ManualClock();
    const { app } = await buildApp({ config: testConfig({ databaseUrl: p.db.url, changeLog: false }), store, clock, migrate: false });
    try {
      await upsertSite(store, { id: 'santander', name: 'Santander', type: 'city', latitude: 43.46, longitude: -3.8, countryCode: null, country: null, city: null, quota: null }, clock.now());
      const token = await p.siteToken('santander');
      const before = await store.changes.latest();
      const res = await app.inject({ method: 'POST', url: `/federation/v2/entities/${encodeURIComponent(A)}/attrs`, headers: writeHeaders(token), payload: JSON.stringify({ TimeInstant: timeInstant(), temperature: { type: 'Number', value: 35 } }) });
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(await store.changes.latest(), before);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
