import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/domain/clock.js';
import { assetBody, create, remove, timeInstant, update } from '../helpers/federation.js';
import { freePort } from '../helpers/free-port.js';
import { ManualTimers } from '../../src/domain/timers.js';
import { bearer, startPlatform, type TestPlatform } from '../helpers/platform.js';
import { Receiver } from '../helpers/receiver.js';
import { STORES } from '../helpers/stores.js';
import { claimLease, lowestLiveCursor } from '../../src/storage/repositories/subscriptions.js';
import { LEASE_MS } from '../../src/services/subscription-delivery.js';

/**
 * Delivery of NGSI v2 notifications, seen from a receiver on loopback: the
 * body and headers of each format, which changes each condition notifies,
 * throttling, oneshot, expiry, retries and maxFailsLimit, and visibility.
 * The clock and the timers are the test's: a retry is reached by moving them.
 */

const SUBSCRIPTIONS = '/federation/v2/subscriptions';
const CENTRE = { latitude: 43.4623, longitude: -3.80998 };

for (const kind of STORES) {
  describe(`subscription delivery [${kind}]`, () => {
    let p: TestPlatform;
    let timers: ManualTimers;
    let site = '';
    let tool = '';
    let n = 0;
    const receivers: Receiver[] = [];

    before(async () => {
      const clock = new ManualClock();
      timers = new ManualTimers(clock);
      p = await startPlatform(kind, { notifyAllowedHosts: '127.0.0.1' }, { clock, timers });
      site = await p.siteToken('santander', CENTRE);
      tool = await p.clientToken('dashboard');
    });
    after(async () => {
      await p.close();
      for (const r of receivers) await r.close();
    });

    const receiver = async () => {
      const r = await new Receiver().start();
      receivers.push(r);
      return r;
    };
    const newId = () => `urn:oc:entity:santander:environment:subs:s${++n}`;
    const subscribe = async (body: Record<string, unknown>, token = tool) => {
      const res = await p.app.inject({ method: 'POST', url: SUBSCRIPTIONS, headers: { ...bearer(token), 'content-type': 'application/json' }, payload: JSON.stringify(body) });
      assert.equal(res.statusCode, 201, res.body);
      return (res.headers.location as string).split('/').pop() as string;
    };
    const read = async (id: string, token = tool) => {
      const res = await p.app.inject({ method: 'GET', url: `${SUBSCRIPTIONS}/${id}`, headers: bearer(token) });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const forEntity = (id: string, url: string, extra: Record<string, unknown> = {}, condition?: Record<string, unknown>) => ({
      subject: { entities: [{ id }], ...(condition ? { condition } : {}) },
      notification: { http: { url } },
      ...extra,
    });
    /** Every subscription has handled the changes made so far (or waits for a retry or a window). */
    const handled = async () => p.ctx.delivery.handled(await p.ctx.store.changes.latest());
    const put = async (id: string, attrs: Record<string, unknown>) => {
      const res = await update(p, site, id, { TimeInstant: timeInstant(), ...attrs });
      assert.equal(res.statusCode, 204, res.body);
      return p.ctx.store.changes.latest();
    };
    const make = async (id: string, attrs: Record<string, unknown> = {}) => {
      const res = await create(p, site, assetBody(id, attrs));
      assert.equal(res.statusCode, 201, res.body);
      return p.ctx.store.changes.latest();
    };

    it('sends a normalized notification with the headers receivers check', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, `${r.url}/notify`));
      const seq = await put(id, { temperature: { type: 'Number', value: 30 } });
      const [got] = await r.until(1);
      assert.equal(got?.method, 'POST');
      assert.equal(got?.path, '/notify');
      assert.equal(got?.headers['content-type'], 'application/json');
      assert.equal(got?.headers['fiware-service'], 'opencity');
      assert.equal(got?.headers['fiware-servicepath'], '/');
      assert.equal(got?.headers['ngsiv2-attrsformat'], 'normalized');
      assert.equal(got?.headers['opencity-change-seq'], String(seq));
      assert.match(String(got?.headers['fiware-correlator']), /^[0-9a-f-]{36}$/);
      assert.deepEqual(got?.body, {
        subscriptionId: sub,
        data: [{ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: { ...timeInstant(), metadata: {} }, temperature: { type: 'Number', value: 30, metadata: {} } }],
      });
    });

    it('sends keyValues and values in the order of notification.attrs, and httpCustom headers and qs', async () => {
      const r = await receiver();
      const id = newId();
      await make(id, { humidity: { type: 'Number', value: 50 } });
      await subscribe({ subject: { entities: [{ id }] }, notification: { http: { url: `${r.url}/kv` }, attrsFormat: 'keyValues', attrs: ['temperature'] } });
      await subscribe({ subject: { entities: [{ id }] }, notification: { httpCustom: { url: `${r.url}/values`, headers: { 'x-api-key': 'k1', 'fiware-correlator': 'mine' }, qs: { via: 'opencity' } }, attrsFormat: 'values', attrs: ['humidity', 'temperature'] } });
      await put(id, { temperature: { type: 'Number', value: 12 } });
      const got = await r.until(2);
      const kv = got.find((g) => g.path === '/kv');
      const values = got.find((g) => g.path.startsWith('/values'));
      assert.equal(kv?.headers['ngsiv2-attrsformat'], 'keyValues');
      assert.deepEqual(kv?.body.data, [{ id, type: 'urn:oc:entityType:iotdevice', temperature: 12 }]);
      assert.equal(values?.headers['ngsiv2-attrsformat'], 'values');
      assert.equal(values?.path, '/values?via=opencity');
      assert.equal(values?.headers['x-api-key'], 'k1');
      assert.notEqual(values?.headers['fiware-correlator'], 'mine');
      assert.deepEqual(values?.body.data, [[50, 12]]);
    });

    it('notifies each alteration type it names, and by default creates and changes', async () => {
      const r = await receiver();
      const id = newId();
      const pattern = `^${id}$`;
      const sub = (types: string[] | undefined, path: string) => subscribe({
        subject: { entities: [{ idPattern: pattern }], ...(types ? { condition: { alterationTypes: types } } : {}) },
        notification: { http: { url: `${r.url}/${path}` } },
      });
      await sub(undefined, 'default');
      await sub(['entityCreate'], 'create');
      await sub(['entityUpdate'], 'update');
      await sub(['entityChange'], 'change');
      await sub(['entityDelete'], 'delete');
      const created = await make(id);
      const updated = await put(id, { temperature: { type: 'Number', value: 1 } });
      assert.equal((await remove(p, site, id)).statusCode, 204);
      const deleted = await p.ctx.store.changes.latest();
      await handled();
      const seqs = (path: string) => r.received.filter((g) => g.path === `/${path}`).map((g) => Number(g.headers['opencity-change-seq']));
      assert.deepEqual(seqs('default'), [created, updated]);
      assert.deepEqual(seqs('create'), [created]);
      assert.deepEqual(seqs('update'), [updated]);
      assert.deepEqual(seqs('change'), [updated]);
      assert.deepEqual(seqs('delete'), [deleted]);
      assert.equal(r.received.length, 6);
    });

    it('notifies only when one of condition.attrs changed', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      await subscribe(forEntity(id, r.url, {}, { attrs: ['humidity'] }));
      await put(id, { temperature: { type: 'Number', value: 2 } });
      const wanted = await put(id, { humidity: { type: 'Number', value: 60 } });
      await handled();
      assert.deepEqual(r.received.map((g) => Number(g.headers['opencity-change-seq'])), [wanted]);
    });

    it('evaluates each q operator on the entity after the change', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      const queries: Record<string, string> = {
        gt: 'temperature>20', ge: 'temperature>=40', lt: 'temperature<20', le: 'temperature<=25', eq: 'temperature==25',
        list: 'temperature==10,40', range: 'temperature==20..30', ne: 'temperature!=25', text: "mode=='eco'", exists: 'alarm', absent: '!alarm',
        and: 'temperature>20;mode==eco',
      };
      for (const [path, q] of Object.entries(queries)) await subscribe(forEntity(id, `${r.url}/${path}`, {}, { expression: { q } }));
      // Each change is delivered before the next: the attributes it did not set are read as they are then.
      const s10 = await put(id, { temperature: { type: 'Number', value: 10 }, mode: { type: 'Text', value: 'eco' } });
      await handled();
      const s25 = await put(id, { temperature: { type: 'Number', value: 25 }, mode: { type: 'Text', value: 'boost' } });
      await handled();
      const s40 = await put(id, { temperature: { type: 'Number', value: 40 }, alarm: { type: 'Boolean', value: true }, mode: { type: 'Text', value: 'eco' } });
      await handled();
      const seqs = (path: string) => r.received.filter((g) => g.path === `/${path}`).map((g) => Number(g.headers['opencity-change-seq']));
      assert.deepEqual(seqs('gt'), [s25, s40]);
      assert.deepEqual(seqs('ge'), [s40]);
      assert.deepEqual(seqs('lt'), [s10]);
      assert.deepEqual(seqs('le'), [s10, s25]);
      assert.deepEqual(seqs('eq'), [s25]);
      assert.deepEqual(seqs('list'), [s10, s40]);
      assert.deepEqual(seqs('range'), [s25]);
      assert.deepEqual(seqs('ne'), [s10, s40]);
      assert.deepEqual(seqs('text'), [s10, s40]);
      assert.deepEqual(seqs('exists'), [s40]);
      assert.deepEqual(seqs('absent'), [s10, s25]);
      assert.deepEqual(seqs('and'), [s40]);
    });

    it('evaluates georel near and coveredBy on the asset position', async () => {
      const r = await receiver();
      const id = newId();
      await make(id, { location: { type: 'geo:point', value: '43.4623, -3.80998' } });
      await subscribe(forEntity(id, `${r.url}/near`, {}, { expression: { georel: 'near;maxDistance:1000', geometry: 'point', coords: '43.4623,-3.80998' } }));
      await subscribe(forEntity(id, `${r.url}/covered`, {}, { expression: { georel: 'coveredBy', geometry: 'polygon', coords: '43.40,-3.90;43.50,-3.90;43.50,-3.70;43.40,-3.70;43.40,-3.90' } }));
      const inside = await put(id, { temperature: { type: 'Number', value: 3 } });
      await handled();
      const far = await put(id, { location: { type: 'geo:point', value: '40.4168, -3.7038' } });
      const back = await put(id, { location: { type: 'geo:point', value: '43.4624, -3.80998' } });
      await handled();
      const seqs = (path: string) => r.received.filter((g) => g.path === `/${path}`).map((g) => Number(g.headers['opencity-change-seq']));
      assert.ok(far > inside);
      assert.deepEqual(seqs('near'), [inside, back]);
      assert.deepEqual(seqs('covered'), [inside, back]);
    });

    it('throttling coalesces: the latest state of each asset at the end of the window', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      await subscribe(forEntity(id, r.url, { throttling: 5 }));
      await put(id, { temperature: { type: 'Number', value: 1 } });
      await r.until(1);
      await put(id, { temperature: { type: 'Number', value: 2 } });
      const last = await put(id, { temperature: { type: 'Number', value: 3 } });
      await handled();
      assert.equal(r.received.length, 1, 'nothing more within the window');
      timers.advance(5000);
      const got = await r.until(2);
      assert.equal(got[1]?.body.data[0].temperature.value, 3);
      assert.equal(got[1]?.headers['opencity-change-seq'], String(last));
      await handled();
      assert.equal(r.received.length, 2);
    });

    it('oneshot notifies once, then turns inactive, and is never taken up again, even by a look that read it while it was live', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, r.url, { status: 'oneshot' }));
      await put(id, { temperature: { type: 'Number', value: 1 } });
      await r.until(1);
      await handled();
      assert.equal((await read(sub)).status, 'inactive');
      // The claim such a look makes once the worker it dropped has finished: the subscription is no longer live.
      const now = p.clock.now();
      assert.equal(await claimLease(p.ctx.store, sub, p.ctx.delivery.holder, now, now + LEASE_MS), undefined);
      await put(id, { temperature: { type: 'Number', value: 2 } });
      timers.advance(1000);
      await handled();
      assert.equal(r.received.length, 1);
      assert.equal((await read(sub)).notification.timesSent, 1);
    });

    it('an expired subscription notifies nothing and reads as expired', async () => {
      const r = await receiver();
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, r.url, { expires: new Date(p.clock.now() + 60_000).toISOString() }));
      timers.advance(61_000);
      await p.ctx.delivery.refresh();
      await put(id, { temperature: { type: 'Number', value: 1 } });
      await handled();
      assert.equal(r.received.length, 0);
      assert.equal((await read(sub)).status, 'expired');
    });

    it('retries after a 500, later changes waiting behind, and keeps Orion\'s status fields', async () => {
      const r = await receiver();
      r.statuses.push(500);
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, r.url));
      const first = await put(id, { temperature: { type: 'Number', value: 1 } });
      await r.until(1);
      const second = await put(id, { temperature: { type: 'Number', value: 2 } });
      await handled();
      const failing = await read(sub);
      assert.equal(failing.notification.failsCounter, 1);
      assert.equal(failing.notification.lastFailureReason, 'HTTP 500');
      assert.equal(failing.notification.timesSent, 1);
      assert.equal(failing.notification.lastSuccess, undefined);
      assert.equal(r.received.length, 1, 'the second change waits behind the first');
      timers.advance(1000);
      const got = await r.until(3);
      assert.deepEqual(got.map((g) => Number(g.headers['opencity-change-seq'])), [first, first, second]);
      await handled();
      const healthy = await read(sub);
      assert.equal(healthy.notification.failsCounter, undefined);
      assert.equal(healthy.notification.lastSuccessCode, 200);
      assert.equal(healthy.notification.timesSent, 3);
      assert.equal(healthy.notification.lastFailureReason, 'HTTP 500');
    });

    it('retries a refused connection with a doubling wait, and delivers once the endpoint is back', async () => {
      const port = await freePort();
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, `http://127.0.0.1:${port}/`));
      const seq = await put(id, { temperature: { type: 'Number', value: 7 } });
      await handled();
      assert.equal((await read(sub)).notification.lastFailureReason, 'connection refused');
      timers.advance(1000);
      await p.ctx.delivery.handled(seq);
      await handled();
      assert.equal((await read(sub)).notification.failsCounter, 2);
      // The second wait is two seconds: one is not enough.
      const r = await receiver();
      const patched = await p.app.inject({ method: 'PATCH', url: `${SUBSCRIPTIONS}/${sub}`, headers: { ...bearer(tool), 'content-type': 'application/json' }, payload: JSON.stringify({ notification: { http: { url: r.url } } }) });
      assert.equal(patched.statusCode, 204, patched.body);
      await p.ctx.delivery.refresh();
      timers.advance(1000);
      await handled();
      assert.equal(r.received.length, 0);
      timers.advance(1000);
      const [got] = await r.until(1);
      assert.equal(got?.headers['opencity-change-seq'], String(seq));
    });

    it('turns inactive past maxFailsLimit consecutive failures', async () => {
      const r = await receiver();
      r.status = 500;
      const id = newId();
      await make(id);
      const sub = await subscribe(forEntity(id, r.url, {}, undefined));
      const patched = await p.app.inject({ method: 'PATCH', url: `${SUBSCRIPTIONS}/${sub}`, headers: { ...bearer(tool), 'content-type': 'application/json' }, payload: JSON.stringify({ notification: { http: { url: r.url }, maxFailsLimit: 1 } }) });
      assert.equal(patched.statusCode, 204, patched.body);
      await p.ctx.delivery.refresh();
      await put(id, { temperature: { type: 'Number', value: 1 } });
      await r.until(1);
      await handled();
      assert.equal((await read(sub)).status, 'active');
      timers.advance(1000);
      await r.until(2);
      await handled();
      const after = await read(sub);
      assert.equal(after.status, 'inactive');
      assert.equal(after.notification.failsCounter, 2);
      timers.advance(10_000);
      await handled();
      assert.equal(r.received.length, 2);
    });

    it("a participant's subscription sees its experiment's assets; another participant's does not", async () => {
      const experimenters = await p.siteToken('experimenters', CENTRE);
      const ours = await receiver();
      const theirs = await receiver();
      const owner = await p.userToken('exp-owner');
      const participant = await p.userToken('participant-1', [{ role: 'participant', experiment: 'exp-1' }]);
      const other = await p.userToken('participant-2', [{ role: 'participant', experiment: 'exp-2' }]);
      const everything = (url: string) => ({ subject: { entities: [{ idPattern: '^urn:oc:entity:experimenters:' }] }, notification: { http: { url } } });
      await subscribe(everything(ours.url), participant.token);
      await subscribe(everything(theirs.url), other.token);
      const id = `urn:oc:entity:experimenters:${owner.userId}:exp-1:phone`;
      const res = await create(p, experimenters, assetBody(id));
      assert.equal(res.statusCode, 201, res.body);
      const [got] = await ours.until(1);
      assert.equal(got?.body.data[0].id, id);
      await handled();
      assert.equal(theirs.received.length, 0);
    });

    it("keeps the changes a live subscription has not delivered from pruning, whatever their age", async () => {
      const r = await receiver();
      r.status = 500;
      const id = newId();
      await make(id);
      await subscribe(forEntity(id, r.url));
      const stuck = await put(id, { temperature: { type: 'Number', value: 1 } });
      await r.until(1);
      await handled();
      const keepAfter = await lowestLiveCursor(p.ctx.store, p.clock.now());
      assert.ok(keepAfter !== undefined && keepAfter < stuck);
      await p.ctx.store.changes.prune(p.clock.now() + 86_400_000, keepAfter);
      const kept = await p.ctx.store.changes.after(stuck - 1, 1);
      assert.equal(kept[0]?.seq, stuck);
      r.status = 200;
      timers.advance(1000);
      const got = await r.until(2);
      assert.equal(got[1]?.headers['opencity-change-seq'], String(stuck));
    });

    it('delivers more than a page of changes to several subscriptions of one receiver, every one, each asset in order; a failure holds back only its subscription', async () => {
      const r = await receiver();
      const ids = Array.from({ length: 20 }, (_, k) => `urn:oc:entity:santander:environment:bulk:b${k}`);
      for (const id of ids) await make(id);
      const paths = ['/s0', '/s1', '/s2'];
      for (const path of paths) await subscribe({ subject: { entities: [{ idPattern: '^urn:oc:entity:santander:environment:bulk:' }] }, notification: { http: { url: `${r.url}${path}` } } });
      const from = await p.ctx.store.changes.latest();
      // One answer in the middle of the run is a 500: that subscription alone waits for its retry.
      r.statuses.push(...new Array<number>(1500).fill(200), 500);
      for (let round = 0; round < 55; round++) {
        const entities = ids.map((id, k) => ({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: timeInstant(), temperature: { type: 'Number', value: round * 100 + k } }));
        const res = await p.app.inject({ method: 'POST', url: '/federation/v2/op/update', headers: { ...bearer(site), 'content-type': 'application/json', 'platform-service': 'opencity' }, payload: JSON.stringify({ actionType: 'update', entities }) });
        assert.equal(res.statusCode, 204, res.body);
      }
      const last = await p.ctx.store.changes.latest();
      const expected = Array.from({ length: last - from }, (_, i) => from + 1 + i);
      assert.equal(expected.length, 1100);
      await r.until(1501);
      await handled();
      const failed = paths.filter((path) => r.received.some((g, i) => i === 1500 && g.path === path));
      assert.equal(failed.length, 1);
      timers.advance(1000);
      await handled();
      for (const path of paths) {
        const mine = r.received.filter((g) => g.path === path);
        const seen = new Set<number>();
        const lastOf = new Map<string, number>();
        for (const [i, g] of r.received.entries()) {
          if (g.path !== path || i === 1500) continue;
          const seq = Number(g.headers['opencity-change-seq']);
          if (seen.has(seq)) continue;
          seen.add(seq);
          const asset = g.body.data[0].id as string;
          assert.ok((lastOf.get(asset) ?? 0) < seq, `${path}: ${asset}'s changes in order`);
          lastOf.set(asset, seq);
        }
        assert.deepEqual([...seen].sort((a, b) => a - b), expected, `${path}: every change`);
        // At least once: only the failed subscription sends some again.
        if (!failed.includes(path)) assert.equal(mine.length, expected.length, `${path}: each change once`);
      }
    });

    it('exports delivered, failed and pending by subscription and destination', async () => {
      const res = await p.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(res.body, /opencity_notifications_delivered_total\{subscription="[0-9a-f]{24}",destination="http:\/\/127\.0\.0\.1:\d+"\} \d+/);
      assert.match(res.body, /opencity_notifications_failed_total\{subscription="[0-9a-f]{24}",destination="http:\/\/127\.0\.0\.1:\d+"\} \d+/);
      assert.match(res.body, /opencity_notifications_pending\{subscription="[0-9a-f]{24}",destination="http:\/\/127\.0\.0\.1:\d+"\} \d+/);
    });
  });
}
