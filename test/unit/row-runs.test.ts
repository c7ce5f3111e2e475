import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { concatRows, rowRuns } from '../../src/storage/prepared-query.js';

describe('row runs of multi-row statements', () => {
  it('cuts any count into runs of a few sizes, largest first, keeping order', () => {
    for (let n = 0; n <= 300; n++) {
      const items = Array.from({ length: n }, (_, i) => i);
      const runs = rowRuns(items);
      assert.deepEqual(runs.flat(), items);
      for (const run of runs) assert.ok([64, 16, 4, 1].includes(run.length), `a run of ${run.length}`);
      assert.ok(runs.length <= Math.floor(n / 64) + 9, `${runs.length} runs for ${n}`);
    }
  });

  it('keeps every run within the largest size asked for', () => {
    const runs = rowRuns(Array.from({ length: 37 }, (_, i) => i), 16);
    assert.deepEqual(runs.map((r) => r.length), [16, 16, 4, 1]);
  });

  it('lays each item\'s rows one after another, in order, as flatMap would', () => {
    const items = [{ id: 'a', values: [1, 2] }, { id: 'b', values: [] }, { id: 'c', values: [3] }];
    const rowsOf = (item: (typeof items)[number], index: number) => item.values.map((v) => [item.id, index, v]);
    assert.deepEqual(concatRows(items, rowsOf), items.flatMap(rowsOf));
    assert.deepEqual(concatRows(items, (item) => [item.id, item.values.length]), ['a', 2, 'b', 0, 'c', 1]);
    assert.deepEqual(concatRows([], () => [1]), []);
  });

  it('keeps a row that is itself an array as one row (one level, as flatMap)', () => {
    assert.deepEqual(concatRows([1, 2], (n) => [[n, n]]), [[1, 1], [2, 2]]);
  });
});
