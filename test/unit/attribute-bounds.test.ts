import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkAttributeCount, checkAttributeNesting, MAX_NESTING, nestsDeeperThan } from '../../src/domain/attribute-bounds.js';
import { planUpdates, type CurrentAsset } from '../../src/domain/update-plan.js';
import { AppError } from '../../src/domain/errors.js';

const deep = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

describe('nesting of values', () => {
  it('counts objects and arrays, not scalars', () => {
    assert.equal(nestsDeeperThan(1, 0), false);
    assert.equal(nestsDeeperThan('x', 0), false);
    assert.equal(nestsDeeperThan(null, 0), false);
    assert.equal(nestsDeeperThan([], 0), true);
    assert.equal(nestsDeeperThan({ a: [1, { b: 2 }] }, 3), false);
    assert.equal(nestsDeeperThan({ a: [1, { b: {} }] }, 3), true);
    assert.equal(nestsDeeperThan([1, [2], [[3]]], 3), false);
  });

  it('answers for any depth without overflowing the stack', () => {
    assert.equal(nestsDeeperThan(deep(200_000), MAX_NESTING), true);
    assert.equal(nestsDeeperThan(deep(MAX_NESTING), MAX_NESTING), false);
    assert.equal(nestsDeeperThan(deep(MAX_NESTING + 1), MAX_NESTING), true);
  });

  it('names the attribute and the part nested too deep', () => {
    assert.throws(() => checkAttributeNesting('shape', deep(MAX_NESTING + 1), {}), (e: unknown) =>
      e instanceof AppError && e.message === `Asset attribute shape.value is nested more than ${MAX_NESTING} levels deep`);
    assert.throws(() => checkAttributeNesting('shape', 1, { m: { value: deep(MAX_NESTING) } }), (e: unknown) =>
      e instanceof AppError && e.message === `Asset attribute shape.metadata is nested more than ${MAX_NESTING} levels deep`);
    checkAttributeNesting('shape', deep(MAX_NESTING), undefined);
  });
});

describe('attributes per asset', () => {
  it('refuses a count beyond the bound', () => {
    checkAttributeCount(4, 4);
    assert.throws(() => checkAttributeCount(5, 4), (e: unknown) => e instanceof AppError && e.message === 'An asset has at most 4 attributes (MAX_ATTRIBUTES), TimeInstant included');
  });

  it('refuses an update that would leave its asset with too many, counting those it keeps; the next update still applies', () => {
    const id = 'urn:oc:entity:santander:environment:rules:w';
    const current: CurrentAsset = {
      id, seq: 1, type: 't', site: 'santander', service: null, provider: null, latitude: 0, longitude: 0, last_reading_at: 0, recorded_at: 0,
      attrs: JSON.stringify({ a: { type: 'N', value: 1, metadata: {} }, b: { type: 'N', value: 1, metadata: {} } }),
    };
    const attr = { type: 'N', value: 2, metadata: {} };
    const change = (changes: Record<string, typeof attr>) => ({ id, expectedType: undefined, changes, position: undefined, recordedAt: 0, receivedAt: 0, maxAttributes: 3 });
    const plan = planUpdates([change({ c: attr, d: attr }), change({ a: attr, b: attr, c: attr }), change({ d: attr })], [current]);
    assert.deepEqual(plan.outcomes, ['too-many-attributes', 'updated', 'too-many-attributes']);
    assert.deepEqual(plan.readings.map((r) => r.name), ['a', 'b', 'c']);
    assert.deepEqual(Object.keys(plan.written[0]!.attrs), ['a', 'b', 'c']);
  });
});
