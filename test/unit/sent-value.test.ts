import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sentValue } from '../../src/storage/sqlite/sent-value.js';

describe('the value SQLite stores of a reading', () => {
  const at = Date.parse('2026-08-26T07:41:19.671Z');

  it('leaves out the ISO 8601 text of the reading\'s own observation time', () => {
    assert.equal(sentValue('2026-08-26T07:41:19.671Z', at), null);
    assert.equal(sentValue('1970-01-01T00:00:00.000Z', 0), null);
    assert.equal(sentValue('9999-12-31T23:59:59.999Z', Date.UTC(9999, 11, 31, 23, 59, 59, 999)), null);
  });

  it('keeps every other value as sent', () => {
    for (const [value, time] of [
      ['2026-08-26T07:41:19Z', Date.parse('2026-08-26T07:41:19Z')],
      ['2026-08-26T07:41:19.670Z', at],
      ['2026-08-26T07:41:19.671+00:00', at],
      ['"2026-08-26T07:41:19.671Z"', at],
      ['52.00', at],
      ['1969-12-31T23:59:59.999Z', -1],
      ['', at],
    ] as const) assert.equal(sentValue(value, time), value, value);
    const late = Date.UTC(10000, 0, 1);
    assert.equal(sentValue(new Date(late).toISOString(), late), new Date(late).toISOString());
  });
});
