import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseRetention } from '../../src/config.js';
import { effectiveRetentionMs, readingsExpireBefore, rollupsExpireBefore } from '../../src/domain/history-retention.js';

const HOUR = 3_600_000;

describe('history retention', () => {
  it('HISTORY_RETENTION and ROLLUP_RETENTION keep everything by default, take durations or forever, and refuse the rest', () => {
    const defaults = loadConfig({});
    assert.equal(defaults.historyRetentionMs, Number.POSITIVE_INFINITY);
    assert.equal(defaults.rollupRetentionMs, Number.POSITIVE_INFINITY);
    const set = loadConfig({ HISTORY_RETENTION: '90d', ROLLUP_RETENTION: '720h' });
    assert.equal(set.historyRetentionMs, 90 * 24 * HOUR);
    assert.equal(set.rollupRetentionMs, 720 * HOUR);
    assert.throws(() => loadConfig({ HISTORY_RETENTION: '3 months' }), (e: unknown) => e instanceof ConfigError && /HISTORY_RETENTION="3 months"/.test(e.message));
    assert.throws(() => loadConfig({ ROLLUP_RETENTION: 'never' }), ConfigError);
    assert.equal(parseRetention('forever'), Number.POSITIVE_INFINITY);
    assert.equal(parseRetention('30m'), 30 * 60_000);
  });

  it("a site's own retention comes first; forever expires nothing", () => {
    assert.equal(effectiveRetentionMs(undefined, 5), 5);
    assert.equal(effectiveRetentionMs(Number.POSITIVE_INFINITY, 5), Number.POSITIVE_INFINITY);
    assert.equal(readingsExpireBefore(1000, Number.POSITIVE_INFINITY), undefined);
    assert.equal(readingsExpireBefore(1000, 300), 700);
  });

  it('a rollup expires once its whole hour or day ended longer ago than the retention', () => {
    const now = 10 * HOUR;
    const before = rollupsExpireBefore(now, 2 * HOUR, HOUR) as number;
    // The hour starting at 7 h ended at 8 h = now - 2 h: expired. The one starting at 7 h + 1 ms would not be.
    assert.equal(7 * HOUR < before, true);
    assert.equal(7 * HOUR + 1 < before, false);
    assert.equal(rollupsExpireBefore(now, Number.POSITIVE_INFINITY, HOUR), undefined);
  });
});
