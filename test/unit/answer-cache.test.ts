import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerCache } from '../../src/http/answer-cache.js';

describe('the discovery answer cache\'s doorkeeper', () => {
  it('admits a URL the second time it is asked, not the first', () => {
    const cache = new AnswerCache(8 * 1024 * 1024, 512 * 1024);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), false);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), true);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), true);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=31'), false);
  });

  it('remembers a bounded amount of URLs asked once, forgetting them all when full', () => {
    const cache = new AnswerCache(8 * 1024 * 1024, 512 * 1024);
    const long = (n: number) => `0 /discovery/v0/assets/${String(n).padStart(8, '0')}${'x'.repeat(1024 * 1024)}`;
    for (let n = 0; n < 3; n++) assert.equal(cache.admits(long(n)), false);
    assert.equal(cache.admits(long(2)), true);
    // Four URLs of a MiB each do not fit in the 4 MiB kept: the fourth starts it afresh.
    assert.equal(cache.admits(long(3)), false);
    assert.equal(cache.admits(long(3)), true);
    assert.equal(cache.admits(long(0)), false);
  });
});
