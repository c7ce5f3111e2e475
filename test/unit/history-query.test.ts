import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AppError } from '../../src/domain/errors.js';
import { httpStatus } from '../../src/http/error-handler.js';
import { formatRecvTime, parseIsoDate } from '../../src/domain/history-dates.js';
import { parseHistoryQuery, type RawQuery } from '../../src/domain/history-query.js';

const ms = (iso: string) => Date.parse(iso);
const T = ms('2017-01-09T00:00:00.000Z');

/** Asserts a 400 whose description names the parameter. */
function rejects(raw: RawQuery, parameter: string, scope: 'asset' | 'attribute' = 'attribute'): void {
  assert.throws(() => parseHistoryQuery(raw, scope), (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(httpStatus(e), 400);
    assert.equal(e.kind, 'BadRequest');
    assert.match(e.message, new RegExp(`'${parameter}'`));
    return true;
  });
}

describe('datasource dates', () => {
  const cases: Array<[string, string]> = [
    ['2017-01-09T19:26Z', '2017-01-09T19:26:00.000Z'],
    ['2017-01-09T19:26:35Z', '2017-01-09T19:26:35.000Z'],
    ['2017-01-09T19:26:35.123Z', '2017-01-09T19:26:35.123Z'],
    ['2017-01-09T19:26:35.1Z', '2017-01-09T19:26:35.100Z'],
    ['2017-01-09T19:26:35.123456789Z', '2017-01-09T19:26:35.123Z'],
    ['2017-01-09T19:26:35,5Z', '2017-01-09T19:26:35.500Z'],
    ['2017-01-09t19:26z', '2017-01-09T19:26:00.000Z'],
    ['2017-01-09T19:26', '2017-01-09T19:26:00.000Z'],
    ['2017-01-09 19:26:35', '2017-01-09T19:26:35.000Z'],
    ['2017-01-09', '2017-01-09T00:00:00.000Z'],
    ['2017-01-09T20:26+01:00', '2017-01-09T19:26:00.000Z'],
    ['2017-01-09T20:26:35.000+0100', '2017-01-09T19:26:35.000Z'],
    ['2017-01-09T17:56-01:30', '2017-01-09T19:26:00.000Z'],
    ['2017-01-09T21:26+02', '2017-01-09T19:26:00.000Z'],
    // an unencoded '+' arrives as a space
    ['2017-01-09T20:26:35 01:00', '2017-01-09T19:26:35.000Z'],
    ['2016-02-29T00:00Z', '2016-02-29T00:00:00.000Z'],
    ['0001-01-01T00:00Z', '0001-01-01T00:00:00.000Z'],
  ];
  for (const [text, iso] of cases) {
    it(`reads ${text}`, () => assert.equal(parseIsoDate(text), ms(iso)));
  }

  for (const text of [
    '', 'yesterday', '2017-01-09T19', '2017-1-9T19:26Z', '2017-01-09T19:26:3Z', '2017-13-01T00:00Z', '2017-02-29T00:00Z',
    '2017-04-31', '2017-01-00', '2017-01-09T24:00Z', '2017-01-09T19:60Z', '2017-01-09T19:26:60Z', '2017-01-09T19:26+24:00',
    '2017-01-09T19:26+01:60', '2017-01-09T19:26:35.Z', '2017-01-09Z', '1483990000000', '2017-01-09T19:26Z ', ' 2017-01-09',
    '2017-01-09T19:26:35.1234567890Z',
  ]) {
    it(`refuses ${JSON.stringify(text)}`, () => assert.equal(parseIsoDate(text), undefined));
  }

  it('formats receive times as ISO 8601 UTC with milliseconds, as Date#toISOString, and reads them back', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: ms('9999-12-31T23:59:59.999Z') }), (t) => {
      const text = formatRecvTime(t);
      assert.equal(text, new Date(t).toISOString());
      assert.equal(parseIsoDate(text), t);
    }), { numRuns: 2000 });
    // runs of the same day, then a day change, then back (the formatter keeps the last day)
    for (const t of [T, T + 1, T + 86_399_999, T + 86_400_000, T - 1, T, 0, ms('1969-12-31T23:59:59.999Z'), ms('+010000-01-01T00:00:00.000Z')]) {
      assert.equal(formatRecvTime(t), new Date(t).toISOString());
    }
  });
});

describe('datasource query parameters', () => {
  it('defaults to the first 1000 readings, no date filter', () => {
    assert.deepEqual(parseHistoryQuery({}, 'attribute'), {
      kind: 'readings', range: undefined, selection: { kind: 'page', limit: 1000, offset: 0 }, valuesOnly: false,
    });
  });

  it('applies the date filter only when both bounds are given', () => {
    assert.equal(parseHistoryQuery({ from: '2017-01-09T19:26Z' }, 'asset').range, undefined);
    assert.equal(parseHistoryQuery({ to: '2017-01-09T19:26Z' }, 'asset').range, undefined);
    assert.deepEqual(parseHistoryQuery({ from: '2017-01-09T19:26Z', to: '2017-01-09T19:27Z' }, 'asset').range,
      { from: ms('2017-01-09T19:26:00Z'), to: ms('2017-01-09T19:27:00Z') });
    assert.deepEqual(parseHistoryQuery({ from: '2017-01-09T19:26Z', to: '2017-01-09T19:26Z' }, 'asset').range,
      { from: ms('2017-01-09T19:26:00Z'), to: ms('2017-01-09T19:26:00Z') });
  });

  it('still checks a lone bound', () => {
    rejects({ from: 'soon' }, 'from');
    rejects({ to: '2017-02-30T00:00Z' }, 'to');
  });

  it('refuses a range that ends before it starts', () => rejects({ from: '2017-01-10T00:00Z', to: '2017-01-09T00:00Z' }, 'from'));

  it('takes limit 1–1000 and offset >= 0 as whole numbers', () => {
    assert.deepEqual(parseHistoryQuery({ limit: '1', offset: '0' }, 'asset').selection, { kind: 'page', limit: 1, offset: 0 });
    assert.deepEqual(parseHistoryQuery({ limit: '1000', offset: '4999' }, 'asset').selection, { kind: 'page', limit: 1000, offset: 4999 });
    for (const limit of ['0', '1001', '-1', '10.5', '1e2', 'ten', '', ' 5', '+5', '0x10', '99999999999999999999']) rejects({ limit }, 'limit');
    for (const offset of ['-1', '1.5', 'x', '', '99999999999999999999']) rejects({ offset }, 'offset');
  });

  it('reads lastN as the newest readings, alone', () => {
    assert.deepEqual(parseHistoryQuery({ lastN: '10' }, 'asset').selection, { kind: 'newest', count: 10 });
    for (const lastN of ['0', '1001', 'all']) rejects({ lastN }, 'lastN');
    rejects({ lastN: '10', limit: '5' }, 'lastN');
    rejects({ lastN: '10', offset: '5' }, 'lastN');
  });

  it('reads the values flag', () => {
    for (const values of ['', 'true', 'TRUE', '1']) assert.equal((parseHistoryQuery({ values }, 'attribute') as { valuesOnly: boolean }).valuesOnly, true);
    for (const values of ['false', '0']) assert.equal((parseHistoryQuery({ values }, 'attribute') as { valuesOnly: boolean }).valuesOnly, false);
    rejects({ values: 'yes please' }, 'values');
    rejects({ values: 'true' }, 'values', 'asset');
  });

  it('reads an aggregation, whose page counts buckets', () => {
    assert.deepEqual(parseHistoryQuery({ aggrMethod: 'avg', aggrPeriod: 'hour', limit: '24' }, 'attribute'), {
      kind: 'aggregates', range: undefined, aggregation: { method: 'avg', period: 'hour', periodMs: 3_600_000 }, page: { limit: 24, offset: 0 },
    });
    rejects({ aggrMethod: 'avg' }, 'aggrPeriod');
    rejects({ aggrPeriod: 'hour' }, 'aggrMethod');
    rejects({ aggrMethod: 'mean', aggrPeriod: 'hour' }, 'aggrMethod');
    rejects({ aggrMethod: 'avg', aggrPeriod: 'week' }, 'aggrPeriod');
    rejects({ aggrMethod: 'avg', aggrPeriod: 'hour', lastN: '3' }, 'lastN');
    rejects({ aggrMethod: 'avg', aggrPeriod: 'hour', values: 'true' }, 'values');
    rejects({ aggrMethod: 'avg', aggrPeriod: 'hour' }, 'aggrMethod', 'asset');
  });
});
