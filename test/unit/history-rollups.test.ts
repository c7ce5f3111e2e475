import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY_MS, HOUR_MS, daysBuildableBefore, foldIntoBuckets, rollupDeltas, rollupGranule, splitForRollups } from '../../src/domain/history-rollups.js';

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

  it("a batch's numeric readings add to their hour and, for a day already built, to their day: sums in write order, first and last by time, ties to the first and last written", () => {
    const at = 5 * HOUR_MS;
    const deltas = rollupDeltas([
      { seq: 1, name: 't', recvTime: at + 10, value: '2' },
      { seq: 1, name: 't', recvTime: at, value: '1.5' },
      { seq: 1, name: 't', recvTime: at, value: '7' },
      { seq: 1, name: 't', recvTime: at + 10, value: '-3' },
      { seq: 1, name: 't', recvTime: at + 20, value: 'n/a' },
      { seq: 1, name: 'TimeInstant', recvTime: at, value: '2026-01-01T00:00:00.000Z' },
      { seq: 2, name: 't', recvTime: at + HOUR_MS, value: '1e2' },
    ], DAY_MS);
    const hour = { assetSeq: 1, attrName: 't', periodMs: HOUR_MS, bucket: at, count: 4, sum: 2 + 1.5 + 7 - 3, min: -3, max: 7, firstTime: at, firstValue: 1.5, lastTime: at + 10, lastValue: -3 };
    assert.deepEqual(deltas, [
      hour,
      { ...hour, periodMs: DAY_MS, bucket: 0 },
      { assetSeq: 2, attrName: 't', periodMs: HOUR_MS, bucket: at + HOUR_MS, count: 1, sum: 100, min: 100, max: 100, firstTime: at + HOUR_MS, firstValue: 100, lastTime: at + HOUR_MS, lastValue: 100 },
      { assetSeq: 2, attrName: 't', periodMs: DAY_MS, bucket: 0, count: 1, sum: 100, min: 100, max: 100, firstTime: at + HOUR_MS, firstValue: 100, lastTime: at + HOUR_MS, lastValue: 100 },
    ]);
  });

  it('a reading adds to its day only when the day was already built from its hours', () => {
    const reading = { seq: 1, name: 't', recvTime: DAY_MS + 5, value: '3' };
    assert.deepEqual(rollupDeltas([reading], DAY_MS).map((d) => d.periodMs), [HOUR_MS]);
    assert.deepEqual(rollupDeltas([reading], 2 * DAY_MS).map((d) => d.periodMs), [HOUR_MS, DAY_MS]);
  });

  it('a day is built from its hours once it ended ten minutes ago', () => {
    assert.equal(daysBuildableBefore(3 * DAY_MS + 10 * 60_000 - 1), 2 * DAY_MS);
    assert.equal(daysBuildableBefore(3 * DAY_MS + 10 * 60_000), 3 * DAY_MS);
  });
});
