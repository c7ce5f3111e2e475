import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asciiBytes, asciiQuote } from '../../src/http/ascii-json.js';
import { ByteBoundedLru } from '../../src/http/byte-bounded-lru.js';
import { countCap } from '../../src/interfaces/datasource/history-answers.js';

describe('JSON in ASCII', () => {
  it('writes every ASCII character as JSON.stringify does, alone and among others', () => {
    for (let code = 0; code < 0x80; code++) {
      const c = String.fromCharCode(code);
      assert.equal(asciiQuote(c), JSON.stringify(c));
      assert.equal(asciiQuote(`21.5${c}x`), JSON.stringify(`21.5${c}x`));
    }
  });

  it('quotes any string as JSON.stringify would, with the characters outside ASCII escaped', () => {
    for (const text of ['', 'plain', 'a "b" \\ c', 'Größe ✓', '😀', '\u2028\u2029', '\ud800 lone', 'tab\tnew\nline\u0000', '\u007f\u0080']) {
      const quoted = asciiQuote(text);
      assert.ok(/^[^\u0080-\uffff]*$/.test(quoted), quoted);
      assert.equal(JSON.parse(quoted), text);
      if (/^[^\u0080-\uffff]*$/.test(text)) assert.equal(quoted, JSON.stringify(text));
    }
  });

  it('turns such JSON into the same bytes as UTF-8 would', () => {
    const json = `{"v":${asciiQuote('ünï 😀')}}`;
    assert.deepEqual(asciiBytes(json), Buffer.from(json, 'utf8'));
  });
});

describe('answers kept up to a number of bytes', () => {
  const lru = () => new ByteBoundedLru<string>(10, 6, (s) => s.length);

  it('drops the least recently used first', () => {
    const kept = lru();
    kept.set('a', 'aaaa');
    kept.set('b', 'bbbb');
    assert.equal(kept.get('a'), 'aaaa');
    kept.set('c', 'cccc');
    assert.equal(kept.get('b'), undefined);
    assert.equal(kept.get('a'), 'aaaa');
    assert.equal(kept.get('c'), 'cccc');
    assert.equal(kept.size, 8);
  });

  it('keeps no answer larger than its limit, and forgets the old one under that key', () => {
    const kept = lru();
    kept.set('a', 'aaa');
    kept.set('a', 'aaaaaaa');
    assert.equal(kept.has('a'), false);
    assert.equal(kept.size, 0);
  });

  it('counts a replaced answer once', () => {
    const kept = lru();
    kept.set('a', 'aaaaa');
    kept.set('a', 'aa');
    assert.equal(kept.size, 2);
    kept.clear();
    assert.equal(kept.size, 0);
  });
});

describe('which history answers are kept', () => {
  const range = { from: 0, to: 1000 };
  it('keeps ranges only, counting up to twice what the page reaches', () => {
    assert.equal(countCap({ kind: 'readings', range: undefined, selection: { kind: 'page', limit: 10, offset: 0 }, valuesOnly: false }, undefined), undefined);
    assert.equal(countCap({ kind: 'readings', range, selection: { kind: 'page', limit: 100, offset: 50 }, valuesOnly: false }, undefined), 300);
    assert.equal(countCap({ kind: 'readings', range, selection: { kind: 'newest', count: 10 }, valuesOnly: true }, 'observed'), 20);
    // Aggregates of raw readings are kept; those of the rollups are read again, a row an hour.
    const hourly = { kind: 'aggregates' as const, range, aggregation: { method: 'avg' as const, period: 'hour', periodMs: 3_600_000 }, page: { limit: 10, offset: 0 } };
    assert.equal(countCap(hourly, undefined), undefined);
    assert.equal(countCap(hourly, 'observed'), 50_000);
    assert.equal(countCap({ ...hourly, aggregation: { method: 'avg', period: 'PT5M', periodMs: 300_000 } }, undefined), 50_000);
  });
});
