import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { afterFailure, waitAfter, waitLeft, type BackoffPolicy, type FailureRecord } from '../../src/domain/backoff.js';
import { ADDRESS_BACKOFF, PRINCIPAL_BACKOFF } from '../../src/identity/failed-attempts.js';

const policy: BackoffPolicy = { freeFailures: 3, firstWaitMs: 1000, maxWaitMs: 10_000, forgetAfterMs: 60_000 };

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

  it('never locks anyone out for more than minutes, and stays short for one address', () => {
    assert.ok(waitAfter(PRINCIPAL_BACKOFF, 1e6) <= 5 * 60_000);
    assert.ok(waitAfter(ADDRESS_BACKOFF, 1e6) <= 60_000);
  });
});
