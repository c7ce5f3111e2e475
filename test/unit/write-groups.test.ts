import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WriteGroups, type ItemOutcome } from '../../src/services/write-groups.js';

/**
 * A group write as the store's queue runs it: at the next turn, taking the
 * items then; or failing the next `failures` writes before taking any.
 */
function laterWrites(write: (items: number[]) => Promise<Array<ItemOutcome<number>>>, options: { failBeforeRun?: number } = {}) {
  let failures = options.failBeforeRun ?? 0;
  const jobs: number[] = [];
  const run = (take: () => number[]): Promise<Array<ItemOutcome<number>>> =>
    new Promise<void>((r) => setImmediate(r)).then(() => {
      if (failures > 0) {
        failures--;
        throw new Error('store unreachable');
      }
      return write(take()).then((v) => {
        jobs.push(1);
        return v;
      });
    });
  return { run, jobs };
}

const double = async (items: number[]): Promise<Array<ItemOutcome<number>>> =>
  items.map((n) => (n < 0 ? { ok: false, error: new Error(`negative ${n}`) } : { ok: true, value: n * 2 }));

describe('write groups', () => {
  it('shares one job among the items that arrive together, each with its own outcome', async () => {
    const { run, jobs } = laterWrites(double);
    const groups = new WriteGroups(run);
    const results = await Promise.allSettled([1, 2, -3, 4].map((n) => groups.submit(n)));
    assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), [2, 4, 'negative -3', 8]);
    assert.equal(jobs.length, 1);
  });

  it('fails the whole group when the job throws, and goes on with the next', async () => {
    let calls = 0;
    const { run } = laterWrites(async (items) => {
      if (calls++ === 0) throw new Error('disk full');
      return double(items);
    });
    const groups = new WriteGroups(run);
    const first = await Promise.allSettled([1, 2].map((n) => groups.submit(n)));
    assert.deepEqual(first.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(await groups.submit(5), 10);
  });

  it('fails the waiting items when the queue fails before running the job, and recovers', async () => {
    const { run } = laterWrites(double, { failBeforeRun: 1 });
    const groups = new WriteGroups(run);
    const first = await Promise.allSettled([1, 2, 3].map((n) => groups.submit(n)));
    assert.deepEqual(first.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)), ['store unreachable', 'store unreachable', 'store unreachable']);
    assert.equal(await groups.submit(7), 14);
  });

  it('takes items that arrive while a job runs into the next job', async () => {
    let late: Promise<number> | undefined;
    const { run, jobs } = laterWrites(async (items) => {
      if (!late) late = groups.submit(100);
      return double(items);
    });
    const groups: WriteGroups<number, number> = new WriteGroups(run);
    assert.equal(await groups.submit(1), 2);
    assert.equal(await late, 200);
    assert.equal(jobs.length, 2);
  });

  it('splits a very large group', async () => {
    const { run, jobs } = laterWrites(double);
    const groups = new WriteGroups(run);
    const values = await Promise.all(Array.from({ length: 600 }, (_, n) => groups.submit(n)));
    assert.equal(values[599], 1198);
    assert.equal(jobs.length, 3);
  });
});
