import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TurnQuota } from '../../src/services/turn-quota.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('turn quota', () => {
  it('lets one start in each turn of the event loop when the budget is spent at once, the others in the turns after, in order', async () => {
    const quota = new TurnQuota(0);
    const started: number[] = [];
    const all = Array.from({ length: 3 }, (_, i) => (quota.take() ?? Promise.resolve()).then(() => started.push(i)));
    await Promise.resolve();
    assert.deepEqual(started, [0]);
    await nextTurn();
    assert.deepEqual(started, [0, 1]);
    await nextTurn();
    await Promise.all(all);
    assert.deepEqual(started, [0, 1, 2]);
  });

  it('lets every one start in the same turn while the budget lasts', async () => {
    const quota = new TurnQuota(Number.POSITIVE_INFINITY);
    for (let i = 0; i < 100; i++) assert.equal(quota.take(), undefined);
    await nextTurn();
  });

  it('opens the room again once a turn has passed', async () => {
    const quota = new TurnQuota(0);
    assert.equal(quota.take(), undefined);
    const waiting = quota.take();
    assert.ok(waiting instanceof Promise);
    await waiting;
    await nextTurn();
    await nextTurn();
    assert.equal(quota.take(), undefined);
  });
});
