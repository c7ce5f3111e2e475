import assert from 'node:assert/strict';
import net from 'node:net';
import { it } from 'node:test';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { assetBody, create, remove, timeInstant, update } from '../helpers/federation.js';
import { EventStreamClient, listenOnLoopback, parseMessages, type StreamMessage } from '../helpers/event-stream.js';

const EVENTS = '/discovery/v0/assets/events';
const TYPE = 'urn:oc:entityType:iotdevice';
let minute = 0;
/** An update's attributes, each update observed a minute after the last. */
const changed = (attributes: Record<string, unknown>) => ({ TimeInstant: timeInstant(new Date(Date.parse('2017-07-25T14:00:00.000Z') + 60_000 * ++minute).toISOString()), ...attributes });
const point = (latitude: number, longitude: number) => ({ location: { type: 'geo:json', value: { type: 'Point', coordinates: [longitude, latitude] } } });

/** Streams opened by a test, closed at its end whatever happens. */
async function withStreams(run: (open: (path: string, headers?: Record<string, string>) => Promise<EventStreamClient>) => Promise<void>, p: TestPlatform): Promise<void> {
  const base = await listenOnLoopback(p.app);
  const opened: EventStreamClient[] = [];
  try {
    await run(async (path, headers) => {
      const client = await EventStreamClient.open(base, path, headers);
      opened.push(client);
      return client;
    });
  } finally {
    for (const c of opened) c.close();
  }
}

/**
 * Every stream has been sent all it will get of the changes so far once a
 * stream of everything has them all: the batch is written to every client at
 * once. A heartbeat then shows each stream has read up to there.
 */
async function settle(p: TestPlatform, everything: EventStreamClient, total: number, streams: EventStreamClient[]): Promise<void> {
  await everything.waitForEvents(total);
  const before = streams.map((s) => s.comments().length);
  p.timers.advance(15_000);
  await Promise.all(streams.map((s, i) => s.waitForComments((before[i] as number) + 1)));
}

describeEachStore('discovery: the live event stream', (platform) => {
  it('tells each create, update and delete as it commits: id the change seq, the asset, its position and the attributes changed', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    await withStreams(async (open) => {
      const stream = await open(EVENTS);
      assert.equal(stream.status, 200);
      assert.match(String(stream.response.headers['content-type']), /^text\/event-stream/);
      assert.equal(stream.response.headers['cache-control'], 'no-cache, no-transform');
      const id = 'urn:oc:entity:santander:environmental:fixed:ev1';
      assert.equal((await create(p, token, assetBody(id, point(43.47, -3.8)))).statusCode, 201);
      assert.equal((await update(p, token, id, changed({ temperature: { type: 'Number', value: 23 } }))).statusCode, 204);
      assert.equal((await update(p, token, id, changed(point(43.48, -3.79)))).statusCode, 204);
      assert.equal((await remove(p, token, id)).statusCode, 204);
      const events = await stream.waitForEvents(4);
      const changes = await p.ctx.store.changes.after(0);
      const mine = changes.filter((c) => c.assetId === id);
      assert.deepEqual(events.map((e) => [e.id, e.event]), mine.map((c) => [String(c.seq), c.kind]));
      assert.deepEqual(events[0]?.data, {
        id, type: TYPE, site: 'santander', position: { latitude: 43.47, longitude: -3.8 },
        attributes: {
          TimeInstant: { ...timeInstant(), metadata: {} }, temperature: { type: 'Number', value: 21.5, metadata: {} },
          location: { ...point(43.47, -3.8).location, metadata: {} },
        },
        time: new Date(p.clock.now()).toISOString(),
      });
      assert.deepEqual(Object.keys(events[1]?.data.attributes as object), ['TimeInstant', 'temperature']);
      assert.deepEqual((events[1]?.data.attributes as Record<string, unknown>).temperature, { type: 'Number', value: 23, metadata: {} });
      assert.deepEqual(events[1]?.data.position, { latitude: 43.47, longitude: -3.8 });
      assert.deepEqual(events[2]?.data.position, { latitude: 43.48, longitude: -3.79 });
      assert.deepEqual(events[3]?.data, { id, type: TYPE, site: 'santander', position: { latitude: 43.48, longitude: -3.79 }, attributes: {}, time: events[3]?.data.time });
    }, p);
  });

  it('filters by site, service, provider, type, urn prefix and bbox; an asset leaving the box is told to the stream over it', async () => {
    const p = platform();
    const santander = await p.siteToken('santander');
    const aarhus = await p.siteToken('aarhus', { latitude: 56.1572, longitude: 10.2107 });
    await withStreams(async (open) => {
      const all = await open(EVENTS);
      const bySite = await open(`${EVENTS}?site=aarhus`);
      const byService = await open(`${EVENTS}?service=parking`);
      const byProvider = await open(`${EVENTS}?provider=mobile,other`);
      const byType = await open(`${EVENTS}?type=weatherstation`);
      const byUrn = await open(`${EVENTS}?urn=${encodeURIComponent('urn:oc:entity:santander:environmental:fixed:')}`);
      const byBox = await open(`${EVENTS}?bbox=-3.82,43.45,-3.79,43.47`);
      const both = await open(`${EVENTS}?site=santander&service=parking`);

      const a = 'urn:oc:entity:santander:environmental:fixed:f1';
      const b = 'urn:oc:entity:santander:parking:mobile:g1:p1';
      const c = 'urn:oc:entity:aarhus:parking:fixed:p2';
      const d = 'urn:oc:entity:aarhus:weather:other:w1';
      await create(p, santander, assetBody(a, point(43.46, -3.81)));
      await create(p, santander, assetBody(b, point(43.40, -3.70)));
      await create(p, aarhus, assetBody(c));
      await create(p, aarhus, assetBody(d, {}, 'urn:oc:entityType:weatherstation'));
      await update(p, santander, a, changed(point(43.30, -3.60)));
      await update(p, santander, a, changed({ temperature: { type: 'Number', value: 1 } }));
      await remove(p, aarhus, d);

      await settle(p, all, 7, [bySite, byService, byProvider, byType, byUrn, byBox, both]);
      const seen = (s: EventStreamClient) => s.events().map((e) => `${e.event} ${String(e.data.id)}`);
      assert.deepEqual(seen(bySite), [`create ${c}`, `create ${d}`, `delete ${d}`]);
      assert.deepEqual(seen(byService), [`create ${b}`, `create ${c}`]);
      assert.deepEqual(seen(byProvider), [`create ${b}`, `create ${d}`, `delete ${d}`]);
      assert.deepEqual(seen(byType), [`create ${d}`, `delete ${d}`]);
      assert.deepEqual(seen(byUrn), [`create ${a}`, `update ${a}`, `update ${a}`]);
      // In the box, then moved out of it (told, so the map drops it); the next update, outside, is not.
      assert.deepEqual(seen(byBox), [`create ${a}`, `update ${a}`]);
      assert.deepEqual(seen(both), [`create ${b}`]);
    }, p);
  });

  it('shows experiment assets only to their experimenter, the experiment\'s participants and administrators', async () => {
    const p = platform();
    const site = await p.siteToken('experimenters');
    const experimenter = await p.userToken('exp-owner');
    const participant = await p.userToken('exp-participant', [{ role: 'participant', experiment: 'exp1' }]);
    const stranger = await p.userToken('exp-stranger', [{ role: 'participant', experiment: 'exp2' }]);
    const admin = await p.userToken('exp-admin', ['administrator']);
    const city = await p.siteToken('santander');
    await withStreams(async (open) => {
      const streams = {
        anonymous: await open(EVENTS),
        experimenter: await open(EVENTS, bearer(experimenter.token)),
        participant: await open(EVENTS, bearer(participant.token)),
        stranger: await open(EVENTS, bearer(stranger.token)),
        admin: await open(EVENTS, bearer(admin.token)),
      };
      const secret = `urn:oc:entity:experimenters:${experimenter.userId}:exp1:s1`;
      const pub = 'urn:oc:entity:santander:environmental:fixed:pub1';
      assert.equal((await create(p, site, assetBody(secret))).statusCode, 201);
      assert.equal((await update(p, site, secret, changed({ temperature: { type: 'Number', value: 3 } }))).statusCode, 204);
      assert.equal((await create(p, city, assetBody(pub))).statusCode, 201);
      await settle(p, streams.admin, 3, Object.values(streams));
      const ids = (s: EventStreamClient) => s.events().map((e) => String(e.data.id));
      assert.deepEqual(ids(streams.anonymous), [pub]);
      assert.deepEqual(ids(streams.stranger), [pub]);
      assert.deepEqual(ids(streams.experimenter), [secret, secret, pub]);
      assert.deepEqual(ids(streams.participant), [secret, secret, pub]);
    }, p);
  });

  it('resumes exactly after Last-Event-ID (or lastEventId), live changes included, with no gap and no repeat', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    await withStreams(async (open) => {
      const first = await open(`${EVENTS}?urn=${encodeURIComponent('urn:oc:entity:santander:resume:')}`);
      const ids = ['a', 'b', 'c', 'd'].map((n) => `urn:oc:entity:santander:resume:x:${n}`);
      for (const id of ids) assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
      const seen = await first.waitForEvents(4);
      first.close();

      const resumed = await open(`${EVENTS}?urn=${encodeURIComponent('urn:oc:entity:santander:resume:')}`, { 'last-event-id': String(seen[1]?.id) });
      const byQuery = await open(`${EVENTS}?urn=${encodeURIComponent('urn:oc:entity:santander:resume:')}&lastEventId=${String(seen[2]?.id)}`);
      const later = 'urn:oc:entity:santander:resume:x:e';
      assert.equal((await create(p, token, assetBody(later))).statusCode, 201);
      const events = await resumed.waitForEvents(3);
      assert.deepEqual(events.map((e) => e.data.id), [ids[2], ids[3], later]);
      assert.deepEqual(events.slice(0, 2).map((e) => e.id), seen.slice(2).map((e) => e.id));
      assert.deepEqual((await byQuery.waitForEvents(2)).map((e) => e.data.id), [ids[3], later]);

      // Nothing more arrives than that: a heartbeat comes after the last event.
      p.timers.advance(15_000);
      await resumed.waitForComments(1);
      assert.equal(resumed.events().length, 3);
    }, p);
  });

  it('tells a client to reload (event: reset) when the changes after its Last-Event-ID were pruned, then follows from there', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    await withStreams(async (open) => {
      const old = 'urn:oc:entity:santander:pruned:x:old';
      assert.equal((await create(p, token, assetBody(old))).statusCode, 201);
      const oldSeq = await p.ctx.store.changes.latest();
      assert.equal((await update(p, token, old, changed({ temperature: { type: 'Number', value: 2 } }))).statusCode, 204);
      p.clock.advance(60_000);
      const kept = 'urn:oc:entity:santander:pruned:x:kept';
      assert.equal((await create(p, token, assetBody(kept))).statusCode, 201);
      assert.ok(await p.ctx.store.changes.prune(p.clock.now()) >= 2);
      const latest = await p.ctx.store.changes.latest();

      const stream = await open(EVENTS, { 'last-event-id': String(oldSeq) });
      const [reset] = await stream.waitForEvents(1);
      assert.equal(reset?.event, 'reset');
      assert.equal(reset?.id, String(latest));
      assert.match(String(reset?.data.reason), /reload/);
      assert.equal((await update(p, token, kept, changed({ temperature: { type: 'Number', value: 5 } }))).statusCode, 204);
      const [, next] = await stream.waitForEvents(2);
      assert.deepEqual([next?.event, next?.data.id], ['update', kept]);

      // An id the log never reached is no resume point either.
      const ahead = await open(EVENTS, { 'last-event-id': String(latest + 1_000_000) });
      assert.equal((await ahead.waitForEvents(1))[0]?.event, 'reset');
    }, p);
  });

  it('sends a comment every 15 s of the app\'s clock, whatever happens', async () => {
    const p = platform();
    await withStreams(async (open) => {
      const stream = await open(EVENTS);
      p.timers.advance(15_000);
      await stream.waitForComments(1);
      p.timers.advance(30_000);
      await stream.waitForComments(3);
      assert.deepEqual(stream.comments(), ['heartbeat', 'heartbeat', 'heartbeat']);
      assert.equal(stream.events().length, 0);
    }, p);
  });

  it('answers HEAD with the stream\'s headers and no stream', async () => {
    const res = await platform().app.inject({ method: 'HEAD', url: `${EVENTS}?site=santander` });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/event-stream/);
    assert.equal(res.body, '');
  });

  it('refuses bad parameters with a 400 naming them', async () => {
    const p = platform();
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['?bbox=1,2,3', {}, /bbox/],
      ['?bbox=-3,50,-2,40', {}, /bbox.*minLat/],
      ['?bbox=a,b,c,d', {}, /bbox/],
      ['?bbox=-200,0,0,10', {}, /bbox/],
      ['?site=', {}, /site/],
      ['?urn=', {}, /urn/],
      ['', { 'last-event-id': 'abc' }, /lastEventId/],
      ['?lastEventId=-1', {}, /lastEventId/],
    ];
    for (const [query, headers, pattern] of cases) {
      const res = await p.app.inject({ method: 'GET', url: `${EVENTS}${query}`, headers });
      assert.equal(res.statusCode, 400, `${query} ${JSON.stringify(headers)}`);
      assert.equal(res.headers['content-type'], 'application/json');
      const body = res.json<{ error: string; description: string }>();
      assert.equal(body.error, 'BadRequest');
      assert.match(body.description, pattern);
    }
  });
});

/** A client that sends its request and reads nothing until told to (HTTP/1.0: the stream's bytes come unframed). */
function stalledClient(base: string, path: string): { socket: net.Socket; readAll(): Promise<StreamMessage[]> } {
  const url = new URL(base);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.write(`GET ${path} HTTP/1.0\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
  socket.pause();
  return {
    socket,
    readAll: () => new Promise((resolve, reject) => {
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => { text += chunk; });
      socket.on('end', () => {
        const messages: StreamMessage[] = [];
        parseMessages(text.slice(text.indexOf('\r\n\r\n') + 4), messages);
        resolve(messages);
      });
      socket.on('error', reject);
      socket.resume();
    }),
  };
}

describeEachStore('discovery: the live event stream\'s limits', (platform) => {
  it('closes a client that does not keep up with a last event overflow, instead of buffering without bound', async () => {
    const p = platform();
    const token = await p.siteToken('santander');
    const base = await listenOnLoopback(p.app);
    const stalled = stalledClient(base, EVENTS);
    try {
      // Joined once the stream answers another client's changes (the stalled one reads nothing to tell).
      const watcher = await EventStreamClient.open(base, EVENTS);
      const id = 'urn:oc:entity:santander:slow:x:big';
      assert.equal((await create(p, token, assetBody(id))).statusCode, 201);
      await watcher.waitForEvents(1);
      // Many attributes of a few kB each: no single value is large, their readings are stored as usual.
      const big = Object.fromEntries(Array.from({ length: 100 }, (_, n) => [`note${n}`, { type: 'Text', value: 'x'.repeat(2000) }]));
      // Far more than the socket buffers of both ends hold, each update a batch of its own.
      for (let i = 0; i < 40; i++) {
        assert.equal((await update(p, token, id, changed({ ...big, count: { type: 'Number', value: i } }))).statusCode, 204);
        await watcher.waitForEvents(i + 2, 60_000);
      }
      watcher.close();
      const messages = await stalled.readAll();
      const last = messages.at(-1);
      assert.equal(last?.event, 'overflow');
      assert.match(JSON.parse(last?.data ?? '{}').reason as string, /Last-Event-ID/);
      assert.ok(messages.filter((m) => m.event === 'update').length < 40, 'the slow client was not cut off');
    } finally {
      stalled.socket.destroy();
    }
  });

  it('takes at most EVENTS_MAX_CLIENTS connections; beyond them a clear JSON 503, and room again once one leaves', async () => {
    const p = platform();
    const base = await listenOnLoopback(p.app);
    const one = await EventStreamClient.open(base, EVENTS);
    const two = await EventStreamClient.open(base, EVENTS);
    try {
      const refused = await EventStreamClient.open(base, EVENTS);
      assert.equal(refused.status, 503);
      assert.equal(refused.response.headers['content-type'], 'application/json');
      assert.equal(refused.response.headers['retry-after'], '5');
      assert.deepEqual(JSON.parse(refused.body), {
        error: 'ServiceUnavailable',
        description: 'The live event stream has as many clients as it takes (EVENTS_MAX_CLIENTS); retry later',
      });
      one.close();
      let again: EventStreamClient | undefined;
      for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
        again?.close();
        again = await EventStreamClient.open(base, EVENTS);
      }
      assert.equal(again?.status, 200);
      again?.close();
    } finally {
      one.close();
      two.close();
    }
  });
}, { eventsMaxClients: 2, eventsMaxUnreadBytes: 64 * 1024 });
