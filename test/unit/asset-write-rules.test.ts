import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activityHour } from '../../src/domain/activity.js';
import { netActivityMoves } from '../../src/domain/asset-counters.js';
import { readingsOf, type AssetChange, type CreateInput } from '../../src/domain/asset-writes.js';
import { CreateDecisions, creationCounts } from '../../src/domain/create-decisions.js';
import { latestAttributeRows, planUpdates, type CurrentAsset } from '../../src/domain/update-plan.js';
import { parseAssetUrn } from '../../src/domain/urn.js';

/** The write rules both stores share: what a batch of creates, updates and counter moves comes to. */

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1, 10);
const TEMP = 'urn:oc:attributeType:temperature';

function creation(name: string, site = 'santander', quota = 100): CreateInput {
  const id = `urn:oc:entity:${site}:environment:rules:${name}`;
  return {
    asset: {
      id, type: 'urn:oc:entityType:thermometer', urn: parseAssetUrn(id, site), attributes: { temperature: { type: TEMP, value: '20', metadata: {} } },
      position: undefined, recordedAt: T0, receivedAt: T0,
    },
    registerType: true,
    defaultQuota: quota,
  };
}

const current = (id: string, attrs: object, lastReadingAt = T0): CurrentAsset => ({
  id, seq: 7, type: 'urn:oc:entityType:thermometer', site: 'santander', service: 'environment', provider: null,
  attrs: JSON.stringify(attrs), latitude: 43.46, longitude: -3.8, recorded_at: lastReadingAt, last_reading_at: lastReadingAt,
});

const change = (id: string, changes: AssetChange['changes'], receivedAt: number, extra: Partial<AssetChange> = {}): AssetChange => ({
  id, expectedType: undefined, changes, position: undefined, recordedAt: receivedAt, receivedAt,
  ...extra,
});

describe('create decisions', () => {
  it('decides in order: no site, then quota (creates of the batch counted), then an id already live or created earlier', () => {
    const decisions = new CreateDecisions(new Map([['santander', { quota: 2, latitude: 43.46, longitude: -3.8, assets: 1 }], ['gone', null]]), new Set(['urn:oc:entity:santander:environment:rules:live']));
    const outcomes = [creation('a'), creation('a'), creation('x', 'gone'), creation('live'), creation('b')].map((input) => {
      const refusal = decisions.refusal(input);
      if (!refusal) decisions.made(input);
      return refusal?.kind ?? 'written';
    });
    assert.deepEqual(outcomes, ['written', 'quota-reached', 'no-site', 'quota-reached', 'quota-reached']);
    const roomy = new CreateDecisions(new Map([['santander', { quota: null, latitude: 1, longitude: 2, assets: 0 }]]), new Set());
    const first = creation('c');
    assert.equal(roomy.refusal(first), undefined);
    roomy.made(first);
    assert.deepEqual(roomy.refusal(creation('c')), { kind: 'exists' });
    assert.deepEqual(roomy.positionOf(first.asset), { latitude: 1, longitude: 2 });
  });

  it('counts the creates of a batch per counter and hour, and the types they register', () => {
    const counted = creationCounts([creation('a'), creation('b'), { ...creation('c'), registerType: false }]);
    assert.deepEqual(counted.counts.map((c) => c.n), [3]);
    assert.deepEqual(counted.activity, [{ key: counted.counts[0]!.key, hour: activityHour(T0), n: 3 }]);
    assert.deepEqual(counted.types, ['urn:oc:entityType:thermometer']);
  });
});

describe('update plan', () => {
  it('merges attributes in order, appends one reading per attribute, and records new or retyped attributes', () => {
    const id = 'urn:oc:entity:santander:environment:rules:u';
    const plan = planUpdates([
      change(id, { temperature: { type: TEMP, value: 21, metadata: {} } }, T0 + 1),
      change(id, { humidity: { type: 'urn:oc:attributeType:humidity', value: 50, metadata: {} } }, T0 + 2),
      change('urn:oc:entity:santander:environment:rules:absent', { temperature: { type: TEMP, value: 1, metadata: {} } }, T0 + 3),
      change(id, { temperature: { type: TEMP, value: 22, metadata: {} } }, T0 + 4, { expectedType: 'urn:oc:entityType:other' }),
    ], [current(id, { temperature: { type: TEMP, value: 20, metadata: {} } })]);
    assert.deepEqual(plan.outcomes, ['updated', 'updated', 'not-found', 'not-found']);
    assert.equal(plan.written.length, 1);
    assert.deepEqual(Object.keys(plan.written[0]!.attrs), ['temperature', 'humidity']);
    assert.equal(plan.written[0]!.lastReadingAt, T0 + 2);
    assert.deepEqual(plan.readings.map((r) => [r.name, r.recvTime]), [['temperature', T0 + 1], ['humidity', T0 + 2]]);
    assert.deepEqual(plan.attributes, [{ seq: 7, name: 'humidity', type: 'urn:oc:attributeType:humidity' }]);
    assert.deepEqual(plan.hourMoves, []);
  });

  it('moves an asset whose position changed, and its activity hour when its last reading crosses one', () => {
    const id = 'urn:oc:entity:santander:environment:rules:m';
    const plan = planUpdates([
      change(id, { temperature: { type: TEMP, value: 21, metadata: {} } }, T0 + HOUR, { position: { latitude: 43.5, longitude: -3.8 } }),
    ], [current(id, {})]);
    assert.equal(plan.written[0]!.moved, true);
    assert.equal(plan.hourMoves.length, 1);
    assert.deepEqual([plan.hourMoves[0]!.from, plan.hourMoves[0]!.to, plan.hourMoves[0]!.n], [activityHour(T0), activityHour(T0 + HOUR), 1]);
  });

  it('keeps the last type of an attribute named twice for one asset', () => {
    assert.deepEqual(latestAttributeRows([{ seq: 1, name: 'a', type: 'x' }, { seq: 1, name: 'a', type: 'y' }, { seq: 2, name: 'a', type: 'x' }]),
      [{ seq: 1, name: 'a', type: 'y' }, { seq: 2, name: 'a', type: 'x' }]);
  });
});

describe('activity moves', () => {
  it('nets moves per counter and hour, leaving out zero nets', () => {
    const key = { site: 's', service: '', provider: '', type: 't' };
    assert.deepEqual(netActivityMoves([{ key, from: 10, to: 11, n: 2 }, { key, from: 11, to: 10, n: 2 }, { key, from: 11, to: 12, n: 1 }]),
      [{ key, hour: 11, by: -1 }, { key, hour: 12, by: 1 }]);
  });
});

describe('readings of a write', () => {
  it('appends one reading per attribute it sets, in order: strings as sent, anything else as its JSON text', () => {
    assert.deepEqual(readingsOf({
      temperature: { type: TEMP, value: '52.00', metadata: {} },
      humidity: { type: 'Number', value: 40, metadata: {} },
      location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.8, 43.46] }, metadata: {} },
      nothing: { type: 'Text', value: null, metadata: {} },
    }), [
      { name: 'temperature', type: TEMP, value: '52.00' },
      { name: 'humidity', type: 'Number', value: '40' },
      { name: 'location', type: 'geo:json', value: '{"type":"Point","coordinates":[-3.8,43.46]}' },
      { name: 'nothing', type: 'Text', value: 'null' },
    ]);
  });
});
