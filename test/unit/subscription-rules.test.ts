import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import type { Change } from '../../src/domain/changes.js';
import { exceedsFailsLimit, isDelivered, retryDelayMs } from '../../src/domain/delivery-retry.js';
import { parseDestinationPolicy, refusedDestination } from '../../src/domain/notify-destination.js';
import { effectiveStatus, patchSubscription, readSubscription, renderSubscription } from '../../src/domain/subscription.js';
import { compileSubscription, notificationBody, notifies, positionAfter, stateAfter, type AssetState } from '../../src/domain/subscription-match.js';
import type { VisibleAssets } from '../../src/domain/visible-assets.js';
import { Notifier, type NotificationSender } from '../../src/services/notifier.js';
import { NotifierThread } from '../../src/services/notifier-thread.js';
import type { DestinationPolicy } from '../../src/domain/notify-destination.js';

const NOW = Date.parse('2026-01-01T00:00:00.000Z');
const base = { subject: { entities: [{ idPattern: '.*' }] }, notification: { http: { url: 'http://203.0.113.1/n' } } };
const attr = (value: unknown, type = 'Number') => ({ type, value, metadata: {} });
const change = (kind: Change['kind'], attributes: Change['attributes'], id = 'urn:oc:entity:santander:env:p:a1'): Change => ({
  seq: 7, assetId: id, assetType: 'urn:oc:entityType:iotdevice', site: 'santander', kind, attributes, at: NOW,
});
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const city = (attributes: AssetState['attributes']): AssetState => ({ site: 'santander', experimenter: null, experiment: null, attributes, position: { latitude: 43.46, longitude: -3.81 } });

describe('subscription rules', () => {
  it('retries after 1 s, doubling up to 10 min; only 2xx delivers; inactive past maxFailsLimit', () => {
    assert.deepEqual([1, 2, 3, 4, 10, 11, 50].map(retryDelayMs), [1000, 2000, 4000, 8000, 512_000, 600_000, 600_000]);
    assert.deepEqual([199, 200, 204, 299, 300, 404, 500].map(isDelivered), [false, true, true, true, false, false, false]);
    assert.equal(exceedsFailsLimit(3, 3), false);
    assert.equal(exceedsFailsLimit(4, 3), true);
    assert.equal(exceedsFailsLimit(1000, undefined), false);
  });

  it('refuses internal addresses unless listed, by host, address or CIDR', () => {
    const none = parseDestinationPolicy('');
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.5', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1']) {
      assert.ok(refusedDestination(none, 'receiver', a), a);
    }
    for (const a of ['203.0.113.5', '8.8.8.8', '2001:db8::1', '172.32.0.1']) assert.equal(refusedDestination(none, 'receiver', a), undefined, a);
    const some = parseDestinationPolicy('127.0.0.1, 10.1.0.0/16, quantumleap.internal');
    assert.equal(refusedDestination(some, '127.0.0.1', '127.0.0.1'), undefined);
    assert.equal(refusedDestination(some, 'x', '10.1.200.3'), undefined);
    assert.ok(refusedDestination(some, 'x', '10.2.0.1'));
    assert.equal(refusedDestination(some, 'QuantumLeap.internal', '10.9.9.9'), undefined);
    assert.throws(() => parseDestinationPolicy('10.0.0.0/99'), /not a host, address or CIDR/);
  });

  it('reads a subscription, and renders it back with the status fields Orion adds', () => {
    const definition = readSubscription(base, NOW);
    const rendered = renderSubscription('abc', definition, {
      status: 'active', expiresAt: null, timesSent: 3, lastNotification: NOW, lastSuccess: NOW - 1000, lastSuccessCode: 204,
      lastFailure: NOW, lastFailureReason: 'timeout', failsCounter: 1,
    }, NOW);
    assert.deepEqual(rendered, {
      id: 'abc', subject: base.subject, status: 'active',
      notification: {
        http: base.notification.http, attrsFormat: 'normalized', timesSent: 3, lastNotification: '2026-01-01T00:00:00.000Z',
        lastSuccess: '2025-12-31T23:59:59.000Z', lastSuccessCode: 204, lastFailure: '2026-01-01T00:00:00.000Z', lastFailureReason: 'timeout', failsCounter: 1,
      },
    });
    assert.equal(effectiveStatus({ status: 'active', expiresAt: NOW }, NOW), 'expired');
    assert.equal(effectiveStatus({ status: 'inactive', expiresAt: NOW + 1 }, NOW), 'inactive');
  });

  it('a PATCH replaces the members it gives and is checked whole', () => {
    const stored = readSubscription({ ...base, throttling: 5, description: 'd' }, NOW);
    const next = patchSubscription(stored, { throttling: 1 }, NOW);
    assert.equal(next.throttling, 1);
    assert.equal(next.description, 'd');
    assert.throws(() => patchSubscription(stored, { notification: { http: { url: 'x' } } }, NOW), /notification\.http\.url is not an absolute URL/);
    assert.throws(() => patchSubscription(stored, { id: 'x' }, NOW), /unknown member id/);
  });

  it('matches the kind, the entity, condition.attrs, q, georel and what the owner may see', () => {
    const compiled = (extra: object, visible: VisibleAssets = { all: false, experimenter: null, experiments: [] }) =>
      compileSubscription(readSubscription({ ...base, ...extra }, NOW), visible);
    const state = city({ temperature: attr(30) });
    assert.equal(notifies(compiled({}), change('update', { temperature: attr(30) }), state), true);
    assert.equal(notifies(compiled({}), change('delete', {}), state), false);
    assert.equal(notifies(compiled({ subject: { entities: [{ idPattern: 'a2$' }] } }), change('update', {}), state), false);
    assert.equal(notifies(compiled({ subject: { entities: [{ idPattern: '.*', type: 'Room' }] } }), change('update', {}), state), false);
    assert.equal(notifies(compiled({ subject: { entities: [{ idPattern: '.*', typePattern: 'iot' }] } }), change('update', {}), state), true);
    const withAttrs = compiled({ subject: { entities: [{ idPattern: '.*' }], condition: { attrs: ['humidity'], alterationTypes: ['entityUpdate', 'entityDelete'] } } });
    assert.equal(notifies(withAttrs, change('update', { temperature: attr(1) }), state), false);
    assert.equal(notifies(withAttrs, change('update', { humidity: attr(1) }), state), true);
    assert.equal(notifies(withAttrs, change('delete', {}), state), true, 'a deletion ignores condition.attrs');
    const q = compiled({ subject: { entities: [{ idPattern: '.*' }], condition: { expression: { q: 'temperature>25' } } } });
    assert.equal(notifies(q, change('update', {}), state), true);
    assert.equal(notifies(q, change('update', {}), city({ temperature: attr(20) })), false);
    const near = compiled({ subject: { entities: [{ idPattern: '.*' }], condition: { expression: { georel: 'near;maxDistance:100', geometry: 'point', coords: '43.46,-3.81' } } } });
    assert.equal(notifies(near, change('update', {}), state), true);
    assert.equal(notifies(near, change('update', {}), { ...state, position: { latitude: 43.47, longitude: -3.81 } }), false);
    const experiment: AssetState = { ...state, site: 'experimenters', experimenter: 'u1', experiment: 'e1' };
    assert.equal(notifies(compiled({}), change('update', {}), experiment), false);
    assert.equal(notifies(compiled({}, { all: false, experimenter: null, experiments: ['e1'] }), change('update', {}), experiment), true);
    assert.equal(notifies(compiled({}, { all: false, experimenter: 'u1', experiments: [] }), change('update', {}), experiment), true);
    assert.equal(notifies(compiled({}, { all: true }), change('update', {}), experiment), true);
  });

  it('builds one entity per notification: formats, attrs, onlyChangedAttrs, covered', () => {
    const c = change('update', { temperature: attr(31) });
    const attributes = stateAfter(c, { temperature: attr(30), humidity: attr(60) });
    const body = (notification: object) => plain(notificationBody('s1', readSubscription({ ...base, notification: { ...base.notification, ...notification } }, NOW), c, attributes).body);
    const entity = { id: c.assetId, type: c.assetType };
    assert.deepEqual(body({}), { subscriptionId: 's1', data: [{ ...entity, temperature: attr(31), humidity: attr(60) }] });
    assert.deepEqual(body({ attrsFormat: 'keyValues', exceptAttrs: ['humidity'] }).data, [{ ...entity, temperature: 31 }]);
    assert.deepEqual(body({ attrsFormat: 'values', attrs: ['humidity', 'temperature'] }).data, [[60, 31]]);
    assert.deepEqual(body({ onlyChangedAttrs: true }).data, [{ ...entity, temperature: attr(31) }]);
    assert.deepEqual(body({ covered: true, attrs: ['temperature', 'noise'], attrsFormat: 'keyValues' }).data, [{ ...entity, temperature: 31, noise: null }]);
  });

  it('takes the position a change sets, else the last known one', () => {
    const known = { latitude: 43.46, longitude: -3.81 };
    assert.deepEqual(positionAfter(change('update', { location: attr('43.1, -3.2', 'geo:point') }), known), { latitude: 43.1, longitude: -3.2 });
    assert.deepEqual(positionAfter(change('update', { temperature: attr(1) }), known), known);
  });
});

/** Both senders keep one contract: the notifier itself, and the same in the thread of its own that delivery sends through. */
const senders: Array<[string, (policy: DestinationPolicy, timeoutMs: number) => NotificationSender]> = [
  ['the notifier', (policy, timeoutMs) => new Notifier(policy, timeoutMs)],
  ['the notifier in its thread', (policy, timeoutMs) => new NotifierThread(policy, timeoutMs)],
];

for (const [name, sender] of senders) describe(name, () => {
  const serve = async (status: number) => {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, port: (server.address() as AddressInfo).port };
  };
  const request = (url: string) => ({ url: new URL(url), method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('judges the destination at delivery too: a name resolving to loopback is refused unless listed', async () => {
    const { server, port } = await serve(204);
    const strict = sender(parseDestinationPolicy(''), 2000);
    const open = sender(parseDestinationPolicy('127.0.0.1,::1'), 2000);
    try {
      const byName = await strict.send(request(`http://localhost:${port}/n`));
      assert.equal(byName.ok, false);
      assert.match((byName as { reason: string }).reason, /^destination not allowed: localhost is an internal address/);
      const byAddress = await strict.send(request(`http://127.0.0.1:${port}/n`));
      assert.match((byAddress as { reason: string }).reason, /^destination not allowed: 127\.0\.0\.1/);
      assert.deepEqual(await open.send(request(`http://127.0.0.1:${port}/n`)), { ok: true, status: 204 });
    } finally {
      strict.close();
      open.close();
      server.close();
    }
  });

  it('sends the headers as given (a Host of their own too), refuses one it cannot send, and names a receiver that does not answer', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      // The second path never answers.
      if (req.url !== '/silent') req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const notifier = sender(parseDestinationPolicy('127.0.0.1'), 300);
    try {
      const headers = { 'content-type': 'application/json', host: 'receiver.example', 'fiware-service': 'opencity', 'content-length': '1' };
      assert.deepEqual(await notifier.send({ ...request(`http://127.0.0.1:${port}/n?x=1`), headers }), { ok: true, status: 200 });
      assert.equal(seen[0]?.host, 'receiver.example');
      assert.equal(seen[0]?.['fiware-service'], 'opencity');
      assert.equal(seen[0]?.['content-length'], '2');
      const broken = { ...request(`http://127.0.0.1:${port}/n`), headers: { 'x-note': 'line\r\nx-injected: 1' } };
      assert.deepEqual(await notifier.send(broken), { ok: false, status: undefined, reason: 'invalid header' });
      assert.equal(seen.length, 1);
      assert.deepEqual(await notifier.send(request(`http://127.0.0.1:${port}/silent`)), { ok: false, status: undefined, reason: 'timeout' });
    } finally {
      notifier.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('names what failed: an HTTP status, a refused connection', async () => {
    const { server, port } = await serve(503);
    const notifier = sender(parseDestinationPolicy('127.0.0.1'), 2000);
    try {
      assert.deepEqual(await notifier.send(request(`http://127.0.0.1:${port}/n`)), { ok: false, status: 503, reason: 'HTTP 503' });
      server.close();
      notifier.close();
      assert.deepEqual(await notifier.send(request(`http://127.0.0.1:${port}/n`)), { ok: false, status: undefined, reason: 'connection refused' });
    } finally {
      notifier.close();
      server.close();
    }
  });
});

describe('the notifier thread', () => {
  const listen = async (handler: http.RequestListener) => {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const post = (url: string) => ({ url: new URL(url), method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

  it('gives each notification of one turn its own outcome', async () => {
    // The path names the status to answer.
    const { server, origin } = await listen((req, res) => {
      req.resume();
      req.on('end', () => {
        res.statusCode = Number(req.url?.slice(1));
        res.end();
      });
    });
    const notifier = new NotifierThread(parseDestinationPolicy('127.0.0.1'), 2000);
    try {
      const statuses = Array.from({ length: 60 }, (_, k) => [200, 204, 404, 500, 503][k % 5] as number);
      const outcomes = await Promise.all(statuses.map((status) => notifier.send(post(`${origin}/${status}`))));
      assert.deepEqual(outcomes, statuses.map((status) => (isDelivered(status) ? { ok: true, status } : { ok: false, status, reason: `HTTP ${status}` })));
    } finally {
      notifier.close();
      server.close();
    }
  });

  it('fails what is under way when closed, and starts again for the next notification', async () => {
    const { server, origin } = await listen((req, res) => {
      req.resume();
      // The first path never answers.
      if (req.url !== '/silent') req.on('end', () => res.end());
    });
    const notifier = new NotifierThread(parseDestinationPolicy('127.0.0.1'), 5000);
    try {
      notifier.open();
      assert.deepEqual(await notifier.send(post(`${origin}/n`)), { ok: true, status: 200 });
      const underWay = notifier.send(post(`${origin}/silent`));
      // Closed once the request has reached the receiver.
      await new Promise<void>((resolve) => server.once('request', () => resolve()));
      notifier.close();
      assert.deepEqual(await underWay, { ok: false, status: undefined, reason: 'notifier stopped' });
      assert.deepEqual(await notifier.send(post(`${origin}/n`)), { ok: true, status: 200 });
    } finally {
      notifier.close();
      server.closeAllConnections();
      server.close();
    }
  });
});
