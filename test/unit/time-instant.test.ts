import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { AppError } from '../../src/domain/errors.js';
import { httpStatus } from '../../src/http/error-handler.js';
import { formatInstant, parseInstant, readTimeInstant, TIME_INSTANT_TYPE } from '../../src/domain/time-instant.js';
import { answered } from '../helpers/answered.js';

/**
 * The 36 string cases (and the non-string and falsy ones) of the original
 * platform's TimeInstant check, with the verdicts it gave. Where DESIGN.md is
 * stricter (UTC with an upper-case Z only, a real instant, a string), the
 * deviation is listed here with its reason; every other case keeps its verdict.
 */
const CASES = JSON.parse(fs.readFileSync(new URL('../fixtures/timeinstant-format-cases.json', import.meta.url), 'utf8')) as {
  stringValues: Array<{ value: string; accepted: boolean }>;
  nonStringValues: Array<{ label: string; value: unknown; accepted: boolean }>;
  falsyValues: Array<{ label: string; value: unknown }>;
};

const STRICTER: Record<string, 'format' | 'calendar' | 'type'> = {
  '2016-10-04T13:45:00.009z': 'format', // lower-case z: the format says Z
  '2016-10-04T13:45:00.009+01:00': 'format', // offsets: the spec asks for UTC with a trailing Z
  '2016-10-04T13:45:00.009+0100': 'format',
  '2016-10-04T13:45:00.009+01': 'format',
  '2016-10-04T13:45:00.009-05:30': 'format',
  '2016-10-04T13:45:00.000+99:99': 'format',
  '2016-10-04T24:00:00.000Z': 'calendar', // hours run 00-23
};

const failure = (value: unknown): string => {
  try {
    readTimeInstant({ type: TIME_INSTANT_TYPE, value });
  } catch (error) {
    assert.ok(error instanceof AppError);
    assert.equal(httpStatus(error), 400);
    assert.equal(error.kind, 'BadRequest');
    return error.message;
  }
  return 'accepted';
};

/** A format error says what was expected and what came (and, when one difference explains it, which). */
const FORMAT = (value: string): RegExp =>
  new RegExp(`^Asset attribute TimeInstant\\.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss\\.SSSZ, got ${JSON.stringify(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( \\(.+\\))?$`);

describe('TimeInstant: the 36 reference string cases', () => {
  assert.equal(CASES.stringValues.length, 36);
  for (const c of CASES.stringValues) {
    const deviation = STRICTER[c.value];
    const expected = deviation ? false : c.accepted;
    it(`${JSON.stringify(c.value)} is ${expected ? 'accepted' : 'rejected'}${deviation ? ' (stricter than the original)' : ''}`, () => {
      const outcome = failure(c.value);
      if (expected) {
        assert.equal(outcome, 'accepted');
        return;
      }
      const shape = parseInstant(c.value);
      assert.equal(shape.ok, false);
      // A right shape that names no real instant says so; anything else is a format error.
      if (!shape.ok && shape.reason === 'calendar') {
        assert.equal(outcome, `Asset attribute TimeInstant.value is not a real calendar instant: expected YYYY-MM-DDTHH:mm:ss.SSSZ naming a real date and time, got ${JSON.stringify(c.value)}`);
      } else assert.match(outcome, FORMAT(c.value));
    });
  }
  it('explains impossible dates as such', () => {
    for (const v of ['2016-02-30T13:45:00.000Z', '2015-02-29T13:45:00.000Z', '2016-13-04T13:45:00.000Z', '2016-10-04T13:60:00.000Z', '2016-10-04T13:45:60.000Z', '2016-10-04T24:00:00.000Z', '2016-04-31T00:00:00.000Z', '2016-00-10T00:00:00.000Z', '2016-10-00T00:00:00.000Z']) {
      assert.deepEqual(parseInstant(v), { ok: false, reason: 'calendar' }, v);
    }
  });
});

describe('TimeInstant: non-string and falsy values', () => {
  for (const c of CASES.nonStringValues) {
    it(`${c.label} is rejected${c.accepted ? ' (the original accepted it; a value must be a string)' : ''}`, () => {
      const kind = Array.isArray(c.value) ? 'an array' : typeof c.value === 'object' ? 'an object' : `a ${typeof c.value}`;
      const text = JSON.stringify(c.value) ?? String(c.value);
      const got = `${text.length > 60 ? `${text.slice(0, 57)}...` : text} (${kind})`;
      assert.equal(failure(c.value), `Asset attribute TimeInstant.value must be a string: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got ${got}`);
    });
  }
  for (const c of CASES.falsyValues) {
    it(`${c.label} is "not provided", as the original`, () => {
      assert.equal(failure(c.value), 'Asset attribute TimeInstant.value not provided!');
    });
  }
  it('a missing value is "not provided"', () => {
    assert.throws(() => readTimeInstant({ type: TIME_INSTANT_TYPE }), { message: 'Asset attribute TimeInstant.value not provided!' });
  });
});

describe('TimeInstant: the attribute itself', () => {
  it('missing or falsy: not found', () => {
    for (const v of [undefined, null, false, 0, '']) {
      assert.throws(() => answered(() => readTimeInstant(v)), { status: 400, message: 'Asset attribute TimeInstant in payload not found!' });
    }
  });
  it('not an object: says what it must be and what came', () => {
    const expected = 'Asset attribute TimeInstant must be an object with type and value: expected {"type":"urn:oc:attributeType:ISO8601","value":"YYYY-MM-DDTHH:mm:ss.SSSZ"}, got ';
    for (const [v, got] of [
      ['2016-10-04T13:45:00.000Z', '"2016-10-04T13:45:00.000Z"'], [17, '17 (a number)'], [true, 'true (a boolean)'],
      [[{ type: TIME_INSTANT_TYPE, value: '2016-10-04T13:45:00.000Z' }], '[{"type":"urn:oc:attributeType:ISO8601","value":"2016-10-... (an array)'],
    ] as const) {
      assert.throws(() => readTimeInstant(v), { message: `${expected}${got}` });
    }
  });

  it('a string of the wrong shape: says what was expected, what came and, when one difference explains it, which', () => {
    const message = (got: string, hint?: string) => `Asset attribute TimeInstant.value is not in the required format: expected YYYY-MM-DDTHH:mm:ss.SSSZ, got ${got}${hint ? ` (${hint})` : ''}`;
    for (const [value, hint] of [
      ['2016-12-01T10:00:00Z', 'no milliseconds'], ['2016-12-01', 'a date without a time'], ['2016-12-01 10:00:00.000Z', "a space where the 'T' goes"],
      ['2016-12-01T10:00:00.0Z', 'milliseconds must have exactly three digits'], ['2016-12-01T10:00:00.000+01:00', "an offset: only UTC, written 'Z', is accepted"],
      ['2016-12-01T10:00:00.000', "no zone: UTC is written 'Z'"], ['2016-12-01t10:00:00.000z', "'T' and 'Z' are upper-case"], ['soon', undefined],
    ] as const) {
      assert.throws(() => readTimeInstant({ type: TIME_INSTANT_TYPE, value }), { message: message(JSON.stringify(value), hint) }, value);
    }
    assert.throws(() => readTimeInstant({ type: TIME_INSTANT_TYPE, value: 'x'.repeat(1000) }), { message: message(JSON.stringify(`${'x'.repeat(57)}...`)) });
  });
  it('wrong or missing type', () => {
    for (const type of [undefined, 'ISO8601', 'urn:oc:attributeType:iso8601', 42]) {
      assert.throws(() => readTimeInstant({ type, value: '2016-10-04T13:45:00.000Z' }), { message: 'Asset attribute TimeInstant.type must be urn:oc:attributeType:ISO8601' });
    }
  });
  it('gives the instant in epoch ms', () => {
    assert.equal(readTimeInstant({ type: TIME_INSTANT_TYPE, value: '2016-10-04T13:45:00.009Z' }), Date.parse('2016-10-04T13:45:00.009Z'));
  });
});

describe('parseInstant', () => {
  it('agrees with Date.parse on every valid instant it accepts', () => {
    for (const v of ['1970-01-01T00:00:00.000Z', '2016-02-29T23:59:59.999Z', '2000-02-29T12:00:00.000Z', '1900-03-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z']) {
      assert.deepEqual(parseInstant(v), { ok: true, epochMs: Date.parse(v) }, v);
    }
  });
  it('handles year 0000 (proleptic Gregorian, a leap year)', () => {
    const parsed = parseInstant('0000-02-29T00:00:00.000Z');
    assert.equal(parsed.ok, true);
    if (parsed.ok) assert.equal(formatInstant(parsed.epochMs), '0000-02-29T00:00:00.000Z');
  });
  it('rejects 1900-02-29 (not a leap year) and accepts 2000-02-29', () => {
    assert.deepEqual(parseInstant('1900-02-29T00:00:00.000Z'), { ok: false, reason: 'calendar' });
    assert.equal(parseInstant('2000-02-29T00:00:00.000Z').ok, true);
  });
  it('formats instants as ISO 8601 UTC with milliseconds', () => {
    assert.equal(formatInstant(Date.parse('2017-07-25T13:35:00.000Z')), '2017-07-25T13:35:00.000Z');
  });
});
