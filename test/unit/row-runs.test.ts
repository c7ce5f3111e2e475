import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowRuns } from '../../src/storage/prepared-query.js';

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
});
