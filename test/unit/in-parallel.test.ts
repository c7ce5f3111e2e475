import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapInParallel } from '../../src/services/in-parallel.js';

describe('work over items a few at a time', () => {
  it('gives the results in the order of the items, whatever order the work ends in', async () => {
    const ends: Array<() => void> = [];
    const running = mapInParallel([1, 2, 3, 4, 5], 3, (n) => new Promise<number>((resolve) => ends.push(() => resolve(n * 10))));
    // Ended last to first, as each is started.
    for (let done = 0; done < 5; done++) {
      await new Promise((resolve) => setImmediate(resolve));
      ends.pop()?.();
    }
    assert.deepEqual(await running, [10, 20, 30, 40, 50]);
  });

  it('runs at most `limit` at once, and starts them in order', async () => {
    let now = 0;
    let most = 0;
    const started: number[] = [];
    await mapInParallel([...Array(10).keys()], 4, async (n) => {
      started.push(n);
      most = Math.max(most, ++now);
      await new Promise((resolve) => setImmediate(resolve));
      now--;
    });
    assert.equal(most, 4);
    assert.deepEqual(started, [...Array(10).keys()]);
  });

  it('gives nothing for no items, and fails as the first failed work fails', async () => {
    assert.deepEqual(await mapInParallel([], 4, async () => 1), []);
    await assert.rejects(mapInParallel([1, 2], 2, async (n) => {
      if (n === 2) throw new Error('two');
      return n;
    }), /two/);
  });
});
