import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterFailure, waitAfter, waitLeft, type BackoffPolicy, type FailureRecord } from '../../src/domain/backoff.js';
import { ADDRESS_BACKOFF, PRINCIPAL_BACKOFF } from '../../src/identity/failed-attempts.js';

const policy: BackoffPolicy = { freeFailures: 3, firstWaitMs: 1000, maxWaitMs: 10_000, forgetAfterMs: 60_000, maxOpenMs: 0 };
const open: BackoffPolicy = { ...policy, maxOpenMs: 4000 };

/** The record after one failure at each of `times`, skipping those refused because a wait lasts. */
function failAt(p: BackoffPolicy, times: number[]): { record: FailureRecord | undefined; refused: number } {
  let record: FailureRecord | undefined;
  let refused = 0;
  for (const t of times) {
    if (waitLeft(record, t) > 0) refused++;
    else record = afterFailure(p, record, t);
  }
  return { record, refused };
}

describe('back-off after failed sign-ins', () => {
  it('is free for the first failures, then doubles up to its cap', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => waitAfter(policy, n)), [0, 0, 0, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });

  it('forgets failures a while after the last one', () => {
    let record: FailureRecord | undefined;
    for (let i = 0; i < 5; i++) record = afterFailure(policy, record, 0);
    assert.equal(waitLeft(record, 0), 2000);
    assert.equal(waitLeft(record, 2000), 0);
    assert.equal(afterFailure(policy, record, 59_999).failures, 6);
    assert.equal(afterFailure(policy, record, 60_000).failures, 1);
  });

  it('without an open time, a failure the moment each wait ends renews it back to back', () => {
    const everySecond = Array.from({ length: 600 }, (_, i) => i * 1000);
    const { refused } = failAt(policy, everySecond);
    // 3 free, then waits of 1, 2, 4, 8 s and 10 s ever after: nearly every second is held.
    assert.ok(refused > 500, `${refused}`);
  });

  it('after each wait, holds no one for as long as it lasted, up to its open time, and counts the failures meanwhile', () => {
    let record: FailureRecord | undefined;
    for (let i = 0; i < 10; i++) record = afterFailure(open, record, 0);
    // The tenth failure at 0 s: a wait of 10 s (the cap), then 4 s open.
    assert.deepEqual(record, { failures: 10, lastFailureAt: 0, blockedUntil: 10_000, openUntil: 14_000 });
    assert.equal(waitLeft(record, 9_999), 1);
    const inOpen = afterFailure(open, record, 10_000);
    assert.deepEqual(inOpen, { failures: 11, lastFailureAt: 10_000, blockedUntil: 10_000, openUntil: 14_000 }, 'counted, no wait');
    assert.equal(waitLeft(afterFailure(open, inOpen, 13_999), 13_999), 0);
    const after = afterFailure(open, afterFailure(open, inOpen, 13_999), 14_000);
    assert.equal(waitLeft(after, 14_000), 10_000, 'the next failure after it starts the next wait');
    assert.equal(after.openUntil, 28_000);
  });

  it('a short wait opens as briefly as it lasted', () => {
    let record: FailureRecord | undefined;
    for (let i = 0; i < 5; i++) record = afterFailure(open, record, 0);
    assert.deepEqual(record, { failures: 5, lastFailureAt: 0, blockedUntil: 2000, openUntil: 4000 });
  });

  it('under a failure every second, a sustained attack holds everyone at most the cap at a time, then opens', () => {
    const everySecond = Array.from({ length: 3600 }, (_, i) => i * 1000);
    let record: FailureRecord | undefined;
    let heldSince: number | undefined;
    let longestHeld = 0;
    let openSeconds = 0;
    for (const t of everySecond) {
      if (waitLeft(record, t) > 0) {
        heldSince ??= t;
        longestHeld = Math.max(longestHeld, t - heldSince + 1000);
        continue;
      }
      if (heldSince !== undefined) heldSince = undefined;
      if (record && record.failures > open.freeFailures) openSeconds++;
      record = afterFailure(open, record, t);
    }
    assert.ok(longestHeld <= open.maxWaitMs, `${longestHeld}`);
    assert.ok(openSeconds >= 200, `${openSeconds}`);
  });

  it('never locks anyone out for more than minutes, and stays short for one address', () => {
    assert.ok(waitAfter(PRINCIPAL_BACKOFF, 1e6) <= 5 * 60_000);
    assert.ok(waitAfter(ADDRESS_BACKOFF, 1e6) <= 60_000);
    assert.ok(PRINCIPAL_BACKOFF.maxOpenMs >= 30_000, 'a site that tries every 30 s lands in the open time after each wait');
    assert.equal(ADDRESS_BACKOFF.maxOpenMs, 0, 'one address is held without a break');
  });
});
