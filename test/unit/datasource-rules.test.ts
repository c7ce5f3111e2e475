import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bucketStart, isNumericValue } from '../../src/domain/aggregation.js';
import { csvDocument, csvField } from '../../src/domain/csv.js';
import { canSee } from '../../src/domain/visibility.js';
import type { Caller } from '../../src/domain/caller.js';
import { negotiateFormat } from '../../src/interfaces/datasource/render.js';

const caller = (over: Partial<Caller>): Caller => ({
  subject: 'u-1', clientId: undefined, tool: 'opencity-observatory', username: 'ana', email: undefined,
  roles: [], permissions: {}, experimentRoles: [], expiresAt: 0, ...over,
});

describe('numeric values (aggregation)', () => {
  for (const text of ['0', '-0', '10.7', '-3', '1e5', '1E+5', '2.5e-3', '123456789012345678901234567890', '1e99', '-1.5E-99']) {
    it(`counts ${text} as a number`, () => assert.equal(isNumericValue(text), true));
  }
  for (const text of ['', ' 1', '1 ', '+1', '01', '.5', '5.', '1e', '1e100', '1e999', 'NaN', 'Infinity', '0x10', 'true', '"1"', '[1]', '1,5', 'ten', '1'.repeat(41)]) {
    it(`skips ${JSON.stringify(text)}`, () => assert.equal(isNumericValue(text), false));
  }

  it('aligns buckets on the epoch in UTC', () => {
    const t = Date.parse('2017-01-09T19:26:35.123Z');
    assert.equal(bucketStart(t, 60_000), Date.parse('2017-01-09T19:26:00Z'));
    assert.equal(bucketStart(t, 3_600_000), Date.parse('2017-01-09T19:00:00Z'));
    assert.equal(bucketStart(t, 86_400_000), Date.parse('2017-01-09T00:00:00Z'));
  });
});

describe('CSV (RFC 4180)', () => {
  it('quotes only what needs it and doubles inner quotes', () => {
    assert.equal(csvField('10.7'), '10.7');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\r'), '"cr\r"');
    assert.equal(csvField(''), '');
  });

  it('writes a header row and CRLF line ends', () => {
    assert.equal(csvDocument(['a', 'b'], [['1', '{"x":1,"y":2}'], ['3', '']]), 'a,b\r\n1,"{""x"":1,""y"":2}"\r\n3,\r\n');
    assert.equal(csvDocument(['a'], []), 'a\r\n');
  });
});

describe('response format', () => {
  const cases: Array<[string | undefined, 'json' | 'csv']> = [
    [undefined, 'json'], ['*/*', 'json'], ['application/json', 'json'], ['text/html,*/*;q=0.8', 'json'],
    ['text/csv', 'csv'], ['Text/CSV; charset=utf-8', 'csv'], ['text/csv, application/json', 'csv'],
    ['application/json, text/csv', 'json'], ['application/json;q=0.5, text/csv', 'csv'], ['text/csv;q=0.1, application/json', 'json'],
    ['text/csv;q=0', 'json'], ['application/csv', 'json'],
  ];
  for (const [accept, format] of cases) {
    it(`Accept ${JSON.stringify(accept)} gives ${format}`, () => assert.equal(negotiateFormat(accept), format));
  }
});

describe('visibility', () => {
  const city = { site: 'santander', experimenter: null, experiment: null };
  const experiment = { site: 'experimenters', experimenter: 'u-owner', experiment: 'exp-1' };

  it('shows city assets to everyone, signed in or not', () => {
    assert.equal(canSee(undefined, city), true);
    assert.equal(canSee(caller({}), city), true);
  });

  it('shows experiment assets to the experimenter, its participants and administrators only', () => {
    assert.equal(canSee(undefined, experiment), false);
    assert.equal(canSee(caller({}), experiment), false);
    assert.equal(canSee(caller({ subject: 'u-owner' }), experiment), true);
    assert.equal(canSee(caller({ experimentRoles: [{ role: 'participant', experiment: 'exp-1' }] }), experiment), true);
    assert.equal(canSee(caller({ roles: ['participant'], experimentRoles: [{ role: 'participant', experiment: 'exp-2' }] }), experiment), false);
    assert.equal(canSee(caller({ experimentRoles: [{ role: 'experimenter', experiment: 'exp-1' }] }), experiment), false);
    assert.equal(canSee(caller({ roles: ['administrator'] }), experiment), true);
    assert.equal(canSee(caller({ roles: ['administator'] }), experiment), true);
    assert.equal(canSee(caller({ roles: ['ocsite'] }), experiment), false);
  });
});
