import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnswerCache } from '../../src/http/answer-cache.js';

describe('answers kept until the store moves', () => {
  it('admits a URL the second time it is asked, not the first', () => {
    const cache = new AnswerCache(8 * 1024 * 1024, 512 * 1024, async () => '1');
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), false);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), true);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=30'), true);
    assert.equal(cache.admits('0 /discovery/v0/assets?per=31'), false);
  });

  it('remembers a bounded amount of URLs asked once, forgetting them all when full', () => {
    const cache = new AnswerCache(8 * 1024 * 1024, 512 * 1024, async () => '1');
    const long = (n: number) => `0 /discovery/v0/assets/${String(n).padStart(8, '0')}${'x'.repeat(1024 * 1024)}`;
    for (let n = 0; n < 3; n++) assert.equal(cache.admits(long(n)), false);
    assert.equal(cache.admits(long(2)), true);
    // Four URLs of a MiB each do not fit in the 4 MiB kept: the fourth starts it afresh.
    assert.equal(cache.admits(long(3)), false);
    assert.equal(cache.admits(long(3)), true);
    assert.equal(cache.admits(long(0)), false);
  });

  it('looks at the store once for the requests that arrive together, and afresh for those that come after the look began', async () => {
    let looks = 0;
    let version = 'v1';
    const cache = new AnswerCache(1024, 1024, async () => {
      looks++;
      return version;
    });
    const together = await Promise.all([cache.sync(), cache.sync(), cache.sync()]);
    assert.deepEqual(together, ['v1', 'v1', 'v1']);
    assert.equal(looks, 1);
    version = 'v2';
    assert.equal(await cache.sync(), 'v2');
    assert.equal(looks, 2);
  });

  it('empties itself when the store moved, and keeps nothing read at an older version', async () => {
    let version = 'v1';
    const cache = new AnswerCache(1024, 1024, async () => version);
    const answer = { body: Buffer.from('{}'), contentType: 'application/json', total: undefined };
    cache.set('k', (await cache.sync()) as string, answer);
    assert.equal(cache.get('k'), answer);
    version = 'v2';
    await cache.sync();
    assert.equal(cache.get('k'), undefined);
    cache.set('k', 'v1', answer);
    assert.equal(cache.get('k'), undefined);
  });

  it('shares a read under way of the same key at the same version, with its answer, until it ends', async () => {
    const cache = new AnswerCache(1024, 1024, async () => 'v1');
    assert.equal(cache.readUnderway('k', 'v1'), undefined);
    const done = cache.startReading('k', 'v1');
    const underway = cache.readUnderway('k', 'v1');
    assert.ok(underway);
    assert.equal(cache.readUnderway('k', 'v2'), undefined, 'another version is another read');
    assert.equal(cache.readUnderway('other', 'v1'), undefined);
    const answer = { body: Buffer.from('[]'), contentType: 'application/json', total: '0' };
    done(answer);
    assert.equal(await underway, answer);
    assert.equal(cache.readUnderway('k', 'v1'), undefined);
    done(undefined);
    assert.equal(await underway, answer, 'the first end is the one that counts');
  });

  it('shares no answer from a read that ended without one, and lets a later read of the same key stand', async () => {
    const cache = new AnswerCache(1024, 1024, async () => 'v1');
    const first = cache.startReading('k', 'v1');
    const firstRead = cache.readUnderway('k', 'v1');
    const second = cache.startReading('k', 'v1');
    const secondRead = cache.readUnderway('k', 'v1');
    first();
    assert.equal(await firstRead, undefined);
    assert.equal(cache.readUnderway('k', 'v1'), secondRead, 'the second read is still under way');
    second();
    assert.equal(cache.readUnderway('k', 'v1'), undefined);
  });
});
