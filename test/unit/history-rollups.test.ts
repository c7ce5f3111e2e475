import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY_MS, HOUR_MS, foldIntoBuckets, rollupGranule, splitForRollups } from '../../src/domain/history-rollups.js';

describe('history rollups', () => {
  it('periods of whole days read daily rollups, of whole hours hourly ones, any other none', () => {
    assert.equal(rollupGranule(HOUR_MS), HOUR_MS);
    assert.equal(rollupGranule(6 * HOUR_MS), HOUR_MS);
    assert.equal(rollupGranule(DAY_MS), DAY_MS);
    assert.equal(rollupGranule(7 * DAY_MS), DAY_MS);
    assert.equal(rollupGranule(36 * HOUR_MS), HOUR_MS);
    assert.equal(rollupGranule(15 * 60_000), undefined);
    assert.equal(rollupGranule(7 * 60_000), undefined);
  });

  it('a range is split into the granules it holds whole and the pieces that cut one (to inclusive)', () => {
    assert.deepEqual(splitForRollups(undefined, HOUR_MS), { whole: 'all', edges: [] });
    assert.deepEqual(splitForRollups({ from: 0, to: 3 * HOUR_MS - 1 }, HOUR_MS), { whole: { first: 0, last: 2 * HOUR_MS }, edges: [] });
    assert.deepEqual(splitForRollups({ from: 10, to: 3 * HOUR_MS }, HOUR_MS), {
      whole: { first: HOUR_MS, last: 2 * HOUR_MS },
      edges: [{ from: 10, to: HOUR_MS - 1 }, { from: 3 * HOUR_MS, to: 3 * HOUR_MS }],
    });
    assert.deepEqual(splitForRollups({ from: 10, to: HOUR_MS + 5 }, HOUR_MS), { whole: undefined, edges: [{ from: 10, to: HOUR_MS + 5 }] });
  });

  it('parts fold into their buckets: counts and sums add, least and greatest stay', () => {
    assert.deepEqual(foldIntoBuckets([
      { start: 0, count: 2, sum: 3, min: 1, max: 2 },
      { start: HOUR_MS, count: 1, sum: -4, min: -4, max: -4 },
      { start: 3 * HOUR_MS, count: 1, sum: 9, min: 9, max: 9 },
    ], 2 * HOUR_MS), [
      { start: 0, count: 3, sum: -1, min: -4, max: 2 },
      { start: 2 * HOUR_MS, count: 1, sum: 9, min: 9, max: 9 },
    ]);
  });
});
