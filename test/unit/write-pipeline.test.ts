import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssetChange } from '../../src/domain/asset-writes.js';
import type { BatchCommitter, BatchItem, ItemOutcome } from '../../src/storage/write-batch.js';
import { WritePipeline } from '../../src/storage/write-pipeline.js';

/**
 * The write pipeline's grouping, with a store that commits each batch at the
 * next turn; or fails the next `failBeforeRun` batches before running them.
 * An update's id carries a number; the store answers twice that number, and
 * refuses negative numbers (an item that fails alone).
 */
function laterCommits(commit: (items: number[]) => Promise<ItemOutcome[]>, options: { failBeforeRun?: number } = {}) {
  let failures = options.failBeforeRun ?? 0;
  const batches: number[] = [];
  const committer: BatchCommitter = {
    batchesInFlight: 1,
    commit: (items: readonly BatchItem[]) => new Promise<void>((r) => setImmediate(r)).then(() => {
      if (failures > 0) {
        failures--;
        throw new Error('store unreachable');
      }
      return commit(items.map((i) => Number((i as { input: AssetChange }).input.id))).then((outcomes) => {
        batches.push(items.length);
        // The store numbers each batch's last change by the batches committed so far.
        return { outcomes, lastChange: batches.length };
      });
    }),
  };
  return { committer, batches };
}

const double = async (items: number[]): Promise<ItemOutcome[]> =>
  items.map((n) => (n < 0 ? { ok: false, error: new Error(`negative ${n}`) } : { ok: true, value: n * 2 }));

const update = (n: number) => ({
  kind: 'update' as const,
  input: { id: String(n), expectedType: undefined, changes: {}, position: undefined, recordedAt: 0, receivedAt: 0, readings: [] },
});

/** A store whose first commit throws and whose later ones double. */
function firstCommitThrows(): (items: number[]) => Promise<ItemOutcome[]> {
  let calls = 0;
  return async (items) => {
    if (calls++ === 0) throw new Error('disk full');
    return double(items);
  };
}

/** The pipeline, answering with the store's numbers. */
const submit = (pipeline: WritePipeline, n: number) => pipeline.write(update(n)) as unknown as Promise<number>;

describe('write pipeline', () => {
  it('tells the change log the last seq of each committed batch before its writes are answered', async () => {
    const { committer } = laterCommits(double);
    const told: number[] = [];
    const pipeline = new WritePipeline(committer, (seq) => told.push(seq));
    const first = await Promise.all([submit(pipeline, 1), submit(pipeline, 2)]).then((values) => ({ values, told: [...told] }));
    assert.deepEqual(first, { values: [2, 4], told: [1] });
    assert.equal(await submit(pipeline, 3), 6);
    assert.deepEqual(told, [1, 2]);
  });

  it('commits the writes that arrive together in one batch, each with its own outcome', async () => {
    const { committer, batches } = laterCommits(double);
    const pipeline = new WritePipeline(committer);
    const results = await Promise.allSettled([1, 2, -3, 4].map((n) => submit(pipeline, n)));
    assert.deepEqual(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)), [2, 4, 'negative -3', 8]);
    assert.equal(batches.length, 1);
  });

  it('fails the whole batch when its commit throws, and goes on with the next', async () => {
    const { committer } = laterCommits(firstCommitThrows());
    const pipeline = new WritePipeline(committer);
    const first = await Promise.allSettled([1, 2].map((n) => submit(pipeline, n)));
    assert.deepEqual(first.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(await submit(pipeline, 5), 10);
  });

  it('fails the waiting writes when the store fails before running the batch, and recovers', async () => {
    const { committer } = laterCommits(double, { failBeforeRun: 1 });
    const pipeline = new WritePipeline(committer);
    const first = await Promise.allSettled([1, 2, 3].map((n) => submit(pipeline, n)));
    assert.deepEqual(first.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)), ['store unreachable', 'store unreachable', 'store unreachable']);
    assert.equal(await submit(pipeline, 7), 14);
  });

  it('takes writes that arrive while a batch commits into the next batch', async () => {
    let late: Promise<number> | undefined;
    const { committer, batches } = laterCommits(async (items) => {
      if (!late) late = submit(pipeline, 100);
      return double(items);
    });
    const pipeline: WritePipeline = new WritePipeline(committer);
    assert.equal(await submit(pipeline, 1), 2);
    assert.equal(await late, 200);
    assert.equal(batches.length, 2);
  });

  it('sums the time writes spend in it, answered or failed, and nothing while none is under way', async () => {
    const { committer } = laterCommits(firstCommitThrows());
    const pipeline = new WritePipeline(committer);
    assert.equal(pipeline.writeTimeMs(), 0);
    await Promise.allSettled([1, 2].map((n) => submit(pipeline, n)));
    await Promise.all([3, 4, 5].map((n) => submit(pipeline, n)));
    const spent = pipeline.writeTimeMs();
    assert.ok(spent > 0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(pipeline.writeTimeMs(), spent);
  });

  it('splits a very large batch', async () => {
    const { committer, batches } = laterCommits(double);
    const pipeline = new WritePipeline(committer);
    const values = await Promise.all(Array.from({ length: 600 }, (_, n) => submit(pipeline, n)));
    assert.equal(values[599], 1198);
    assert.equal(batches.length, 3);
  });
});
