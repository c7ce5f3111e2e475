import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Change } from '../../src/domain/changes.js';
import { ManualClock } from '../../src/domain/clock.js';
import { AppError } from '../../src/domain/errors.js';
import { eventMatches, insideBox, liveEventOf, parseBbox, parseEventFilter, parseLastEventId } from '../../src/domain/live-events.js';
import { ManualTimers } from '../../src/domain/timers.js';

const change = (over: Partial<Change> = {}): Change => ({
  seq: 7, assetId: 'urn:oc:entity:santander:environmental:fixed:g1:a1', assetType: 'urn:oc:entityType:iotdevice', site: 'santander',
  kind: 'update', attributes: {}, at: Date.parse('2026-01-01T00:00:00.000Z'), ...over,
});
const here = { latitude: 43.46, longitude: -3.81 };

describe('live events: filters', () => {
  it('reads comma-separated alternatives, short type names and the urn prefix', () => {
    assert.deepEqual(parseEventFilter({ site: 'santander, aarhus', type: 'iotdevice', urn: 'urn:oc:entity:santander:' }), {
      sites: ['santander', 'aarhus'], types: ['urn:oc:entityType:iotdevice'], urnPrefix: 'urn:oc:entity:santander:',
    });
    assert.deepEqual(parseEventFilter({}), {});
  });

  it('refuses a bbox that is not four numbers in range, lower latitude first', () => {
    assert.deepEqual(parseBbox('-3.9,43.4,-3.7,43.5'), { minLon: -3.9, minLat: 43.4, maxLon: -3.7, maxLat: 43.5 });
    for (const bad of ['1,2,3', '1,2,3,4,5', 'a,1,2,3', '-181,0,0,1', '0,-91,1,1', '0,10,1,5', '']) {
      assert.throws(() => parseBbox(bad), (e: unknown) => e instanceof AppError && /'bbox'/.test(e.message), bad);
    }
  });

  it('a box across the antimeridian holds both sides', () => {
    const box = parseBbox('170,-10,-170,10');
    assert.ok(insideBox({ latitude: 0, longitude: 175 }, box));
    assert.ok(insideBox({ latitude: 0, longitude: -175 }, box));
    assert.ok(!insideBox({ latitude: 0, longitude: 0 }, box));
  });

  it('reads Last-Event-ID as a whole number', () => {
    assert.equal(parseLastEventId(undefined), undefined);
    assert.equal(parseLastEventId(' '), undefined);
    assert.equal(parseLastEventId('42'), 42);
    for (const bad of ['-1', '1.5', 'abc', '1e3']) assert.throws(() => parseLastEventId(bad), AppError);
  });

  it('matches on the segments of the asset id, its type, and its position now or before', () => {
    const event = liveEventOf(change(), here, undefined);
    assert.equal(event.service, 'environmental');
    assert.equal(event.provider, 'fixed');
    assert.ok(eventMatches(parseEventFilter({ service: 'environmental', provider: 'fixed,mobile', type: 'iotdevice' }), event));
    assert.ok(!eventMatches(parseEventFilter({ service: 'parking' }), event));
    assert.ok(!eventMatches(parseEventFilter({ urn: 'urn:oc:entity:aarhus:' }), event));
    assert.ok(eventMatches(parseEventFilter({ bbox: '-3.9,43.4,-3.7,43.5' }), event));
    const moved = liveEventOf(change({ attributes: { location: { type: 'geo:point', value: '40.0, -3.0', metadata: {} } } }), here, here);
    assert.deepEqual(moved.position, { latitude: 40, longitude: -3 });
    assert.deepEqual(moved.previous, here);
    assert.ok(eventMatches(parseEventFilter({ bbox: '-3.9,43.4,-3.7,43.5' }), moved), 'leaving the box is told');
    const unseen = liveEventOf(change({ attributes: { location: { type: 'geo:point', value: '40.0, -3.0', metadata: {} } } }), { latitude: 40, longitude: -3 }, undefined);
    assert.ok(unseen.movedFromUnknown);
    assert.ok(eventMatches(parseEventFilter({ bbox: '-3.9,43.4,-3.7,43.5' }), unseen), 'a move from an unknown place may be a departure');
    const stays = liveEventOf(change(), undefined, { latitude: 40, longitude: -3 });
    assert.equal(stays.previous, null);
    assert.ok(!eventMatches(parseEventFilter({ bbox: '-3.9,43.4,-3.7,43.5' }), stays));
  });

  it('an experimenters asset carries its experimenter and experiment (what visibility reads)', () => {
    const event = liveEventOf(change({ assetId: 'urn:oc:entity:experimenters:u1:exp1:s1', site: 'experimenters' }), here, undefined);
    assert.deepEqual([event.experimenter, event.experiment, event.service], ['u1', 'exp1', null]);
  });
});

describe('manual timers', () => {
  it('fire as often as they fell due, in time order, moving the clock along', () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const fired: string[] = [];
    const stop = timers.every(15_000, () => fired.push(`a@${clock.now()}`));
    timers.every(20_000, () => fired.push(`b@${clock.now()}`));
    timers.advance(40_000);
    assert.deepEqual(fired, ['a@15000', 'b@20000', 'a@30000', 'b@40000']);
    assert.equal(clock.now(), 40_000);
    stop();
    timers.advance(20_000);
    assert.deepEqual(fired.slice(4), ['b@60000']);
  });
});
