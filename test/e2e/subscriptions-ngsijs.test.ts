import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';
import { Receiver } from '../helpers/receiver.js';
import { timeInstant } from '../helpers/federation.js';

/**
 * Subscriptions driven by ngsijs, unmodified, over a real socket: what a
 * dashboard or a Node-RED flow written against Orion does, and the
 * notification it then gets on its own endpoint.
 */
const require = createRequire(import.meta.url);
// ngsijs ships no type declarations.
const NGSI = require('ngsijs') as any;

const TI = timeInstant;

describeEachStore('subscriptions with ngsijs', (platform) => {
  let base = '';
  const receiver = new Receiver();
  before(async () => {
    base = await platform().app.listen({ port: 0, host: '127.0.0.1' });
    await receiver.start();
  });
  after(async () => {
    await receiver.close();
  });

  it('creates, lists, reads, updates and deletes a subscription, and its notification arrives', async () => {
    const p = platform();
    const site = new NGSI.Connection(`${base}/federation`, { headers: { Authorization: `Bearer ${await p.siteToken('santander')}` }, service: 'opencity' });
    const tool = new NGSI.Connection(`${base}/federation`, { headers: { Authorization: `Bearer ${await p.clientToken('node-red')}` }, service: 'opencity' });
    const id = 'urn:oc:entity:santander:environment:ngsijs:sub1';
    await site.v2.createEntity({ id, type: 'urn:oc:entityType:iotdevice', TimeInstant: TI(), temperature: { type: 'Number', value: 12.5 } });

    const created = await tool.v2.createSubscription({
      description: 'Santander temperatures',
      subject: { entities: [{ idPattern: '^urn:oc:entity:santander:', type: 'urn:oc:entityType:iotdevice' }], condition: { attrs: ['temperature'] } },
      notification: { http: { url: `${receiver.url}/ngsi` }, attrs: ['temperature'], attrsFormat: 'keyValues' },
    });
    const subId = created.subscription.id as string;
    assert.match(subId, /^[0-9a-f]{24}$/);
    assert.equal(created.location, `/v2/subscriptions/${subId}`);

    const listed = await tool.v2.listSubscriptions({ count: true });
    assert.equal(listed.count, 1);
    assert.deepEqual(listed.results.map((s: { id: string }) => s.id), [subId]);

    await site.v2.appendEntityAttributes({ id, TimeInstant: TI('2017-07-25T13:40:00.000Z'), temperature: { type: 'Number', value: 14 } });
    const [got] = await receiver.until(1);
    assert.deepEqual(got?.body, { subscriptionId: subId, data: [{ id, type: 'urn:oc:entityType:iotdevice', temperature: 14 }] });
    await p.ctx.delivery.handled(await p.ctx.store.changes.latest());

    const { subscription } = await tool.v2.getSubscription(subId);
    assert.equal(subscription.status, 'active');
    assert.equal(subscription.notification.timesSent, 1);
    assert.equal(subscription.notification.lastSuccessCode, 200);

    await tool.v2.updateSubscription({ id: subId, status: 'inactive', throttling: 10 });
    const changed = (await tool.v2.getSubscription(subId)).subscription;
    assert.equal(changed.status, 'inactive');
    assert.equal(changed.throttling, 10);

    await tool.v2.deleteSubscription(subId);
    const missing = await tool.v2.getSubscription(subId).then(() => undefined, (error: unknown) => error);
    assert.ok(missing instanceof NGSI.NotFoundError, String(missing));
    const bad = await tool.v2.createSubscription({ subject: { entities: [{ idPattern: '(' }] }, notification: { http: { url: receiver.url } } }).then(() => undefined, (error: unknown) => error);
    assert.ok(bad instanceof NGSI.BadRequestError, String(bad));
    assert.equal(bad.message, 'Invalid subscription: subject.entities[0].idPattern is not a valid regular expression');
  });
}, { notifyAllowedHosts: '127.0.0.1' });
