import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateBucket, periodMs } from '../../src/domain/aggregation.js';
import { parseHistoryQuery } from '../../src/domain/history-query.js';
import { parseIsoDuration } from '../../src/domain/iso-duration.js';
import { AppError } from '../../src/domain/errors.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('ISO 8601 durations', () => {
  it('reads weeks, days, hours, minutes and seconds, odd lengths included', () => {
    const cases: Array<[string, number]> = [
      ['PT5M', 5 * MIN], ['PT15M', 15 * MIN], ['PT6H', 6 * HOUR], ['P1D', DAY], ['P7D', 7 * DAY], ['P1W', 7 * DAY],
      ['PT7M', 7 * MIN], ['PT90S', 90_000], ['P1DT12H', 36 * HOUR], ['PT1H30M', 90 * MIN], ['PT0.5S', 500], ['PT1,25S', 1250],
    ];
    for (const [text, ms] of cases) assert.deepEqual(parseIsoDuration(text), { ok: true, ms }, text);
  });

  it('refuses what is not a duration of fixed length, saying why', () => {
    for (const text of ['', 'P', 'PT', '5M', 'pt5m', 'PT5', 'P1DT', 'PT-5M', 'PT5M ', 'P1.5D', 'PT5M3H']) {
      const parsed = parseIsoDuration(text);
      assert.equal(parsed.ok, false, text);
    }
    const months = parseIsoDuration('P1M');
    assert.ok(!months.ok && /months/.test(months.reason));
    assert.ok(!parseIsoDuration('P1Y2M').ok);
    const zero = parseIsoDuration('PT0S');
    assert.ok(!zero.ok && /no time/.test(zero.reason));
    assert.ok(!parseIsoDuration('P99999999D').ok);
    // PT1M is a minute, not a month.
    assert.deepEqual(parseIsoDuration('PT1M'), { ok: true, ms: MIN });
  });

  it('names the period both ways: minute, hour, day as before, or a duration', () => {
    assert.deepEqual(periodMs('hour'), { ok: true, ms: HOUR });
    assert.deepEqual(periodMs('PT6H'), { ok: true, ms: 6 * HOUR });
  });
});

describe('aggregation of several methods', () => {
  const status = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      return (e as AppError).message;
    }
    return 'accepted';
  };

  it('lists them in the order given, without repeats', () => {
    const q = parseHistoryQuery({ aggrMethod: 'avg,min,max,min', aggrPeriod: 'PT7M' }, 'attribute');
    assert.equal(q.kind, 'aggregates');
    assert.deepEqual(q.kind === 'aggregates' && q.aggregation, { method: 'avg', methods: ['avg', 'min', 'max'], period: 'PT7M', periodMs: 7 * MIN });
  });

  it('refuses an unknown method or period with a description naming the parameter', () => {
    assert.match(status(() => parseHistoryQuery({ aggrMethod: 'avg,median', aggrPeriod: 'P1D' }, 'attribute')), /aggrMethod/);
    assert.match(status(() => parseHistoryQuery({ aggrMethod: 'avg', aggrPeriod: 'P1M' }, 'attribute')), /aggrPeriod.*months/);
    assert.match(status(() => parseHistoryQuery({ aggrMethod: 'avg', aggrPeriod: 'PT0S' }, 'attribute')), /aggrPeriod/);
  });

  it('computes every method from one bucket summary', () => {
    const bucket = aggregateBucket({ start: 0, count: 4, sum: 10, min: 1, max: 4 }, ['avg', 'min', 'max', 'sum', 'count']);
    assert.deepEqual(bucket, { start: 0, count: 4, values: { avg: 2.5, min: 1, max: 4, sum: 10, count: 4 } });
  });
});
