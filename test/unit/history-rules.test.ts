import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertObservedNotInFuture } from '../../src/domain/clock-skew.js';
import { exportFileName, parseExportQuery } from '../../src/domain/history-export.js';
import { timeIndexOf } from '../../src/domain/history-query.js';
import { parseMultiAssetQuery } from '../../src/domain/multi-asset-query.js';
import { planUpdates, type CurrentAsset } from '../../src/domain/update-plan.js';
import type { AssetChange } from '../../src/domain/asset-writes.js';

const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const MIN = 60_000;
const TEMP = 'urn:oc:attributeType:temperature:ambient';

const message = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
};

describe('observation time', () => {
  const current: CurrentAsset = {
    id: 'a', seq: 3, type: 't', site: 's', service: null, provider: null, attrs: JSON.stringify({ temperature: { type: TEMP, value: '12', metadata: {} } }),
    latitude: 1, longitude: 2, recorded_at: String(T0 + 2 * MIN), last_reading_at: T0 + 2 * MIN,
  };
  const change = (value: string, recordedAt: number, receivedAt: number, extra: object = {}): AssetChange => ({
    id: 'a', expectedType: undefined, changes: { temperature: { type: TEMP, value, metadata: {} }, ...extra }, position: undefined, recordedAt, receivedAt,
  });

  it('an update older than the current state adds readings at its own time and changes nothing else', () => {
    const plan = planUpdates([change('11', T0 + MIN, T0 + 3 * MIN, { pressure: { type: 'Number', value: 1000, metadata: {} } })], [current]);
    assert.deepEqual(plan.outcomes, ['updated']);
    assert.deepEqual(plan.written, []);
    // The write is committed all the same: the change log has it, with its TimeInstant.
    assert.equal(plan.changes.length, 1);
    assert.deepEqual(plan.hourMoves, []);
    assert.deepEqual(plan.readings.map((r) => [r.name, r.value, r.recvTime, r.observedTime]),
      [['temperature', '11', T0 + 3 * MIN, T0 + MIN], ['pressure', '1000', T0 + 3 * MIN, T0 + MIN]]);
    // A name new to the asset is still listed as recorded.
    assert.deepEqual(plan.attributes, [{ seq: 3, name: 'pressure', type: 'Number' }]);
  });

  it('an update as old as the current state, or newer, moves it; in a batch, late ones in between stay history', () => {
    const plan = planUpdates([
      change('13', T0 + 2 * MIN, T0 + 3 * MIN), change('15', T0 + 5 * MIN, T0 + 4 * MIN), change('14', T0 + 4 * MIN, T0 + 5 * MIN),
    ], [current]);
    assert.equal(plan.written.length, 1);
    const [asset] = plan.written;
    assert.equal(asset!.recordedAt, T0 + 5 * MIN);
    assert.equal((asset!.attrs.temperature as { value: unknown }).value, '15');
    assert.equal(plan.changes.length, 3);
    assert.deepEqual(plan.readings.map((r) => r.value), ['13', '15', '14']);
  });

  it('a TimeInstant beyond the clock skew is refused, naming it; at the bound it is accepted', () => {
    assert.equal(message(() => assertObservedNotInFuture(T0 + 5 * MIN, T0, 5 * MIN)), 'accepted');
    assert.match(message(() => assertObservedNotInFuture(T0 + 5 * MIN + 1, T0, 5 * MIN)), /TimeInstant is in the future: 2026-03-01T10:05:00.001Z/);
  });

  it('timeIndex is received unless observed is asked; anything else is refused', () => {
    assert.equal(timeIndexOf({}), 'received');
    assert.equal(timeIndexOf({ timeIndex: 'observed' }), 'observed');
    assert.match(message(() => timeIndexOf({ timeIndex: 'Observed' })), /'timeIndex'/);
  });
});

describe('many assets in one call', () => {
  it('takes a list of ids, or a choice by type and/or site', () => {
    assert.deepEqual(parseMultiAssetQuery({ attr: 'x', assets: 'a, b,a' }), { attr: 'x', assets: { kind: 'ids', ids: ['a', 'b'] } });
    assert.deepEqual(parseMultiAssetQuery({ attr: 'x', site: 's' }), { attr: 'x', assets: { kind: 'selection', type: undefined, site: 's' } });
    assert.match(message(() => parseMultiAssetQuery({ assets: 'a' })), /'attr'/);
    assert.match(message(() => parseMultiAssetQuery({ attr: 'x', assets: 'a', type: 't' })), /'assets'.*'type'/);
    assert.match(message(() => parseMultiAssetQuery({ attr: 'x', assets: Array.from({ length: 101 }, (_, i) => `u${i}`).join(',') })), /101 assets; at most 100/);
  });
});

describe('export', () => {
  it('names the file after the asset (and attribute) with only safe characters', () => {
    assert.equal(exportFileName('urn:oc:entity:x:y:1', undefined, 'csv'), 'urn_oc_entity_x_y_1.csv');
    assert.equal(exportFileName('urn:oc:entity:x:"a/b"', 'temp:ambient', 'ndjson'), 'urn_oc_entity_x__a_b_.temp_ambient.ndjson');
  });

  it('reads from/to by the rule of every history query', () => {
    assert.deepEqual(parseExportQuery({ from: '2026-01-01', to: '2026-01-02' }).range, { from: Date.parse('2026-01-01'), to: Date.parse('2026-01-02') });
    assert.match(message(() => parseExportQuery({ from: '2026-01-02', to: '2026-01-01' })), /'from'/);
    assert.match(message(() => parseExportQuery({ attr: '' })), /'attr'/);
  });
});
