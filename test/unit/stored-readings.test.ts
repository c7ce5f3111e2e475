import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedValueOf, unpackReadings } from '../../src/storage/shared/stored-readings.js';

describe('stored readings', () => {
  it('reads a packed page back: numbers, a value as it is, as JSON, empty or left out', () => {
    const packed = ['10,1,3,4,-250,21.50', '10,2,5,4,0', '11,3,6,7,5,', '12,4,6,7,5,"\\"quoted\\"\\nnext line"', '13,5,6,7,5,a,b"c'].join('\n');
    assert.deepEqual(unpackReadings(packed), [
      { recvTime: 10, seq: 1, attrName: 3, attrType: 4, observedTime: -250, attrValue: '21.50' },
      { recvTime: 10, seq: 2, attrName: 5, attrType: 4, observedTime: 0, attrValue: null },
      { recvTime: 11, seq: 3, attrName: 6, attrType: 7, observedTime: 5, attrValue: '' },
      { recvTime: 12, seq: 4, attrName: 6, attrType: 7, observedTime: 5, attrValue: '"quoted"\nnext line' },
      { recvTime: 13, seq: 5, attrName: 6, attrType: 7, observedTime: 5, attrValue: 'a,b"c' },
    ]);
    assert.deepEqual(unpackReadings(null), []);
  });

  it('gives a value left out back as the ISO 8601 text of its observation time', () => {
    const t = Date.parse('2026-05-01T10:20:30.045Z');
    assert.equal(storedValueOf(null, t), '2026-05-01T10:20:30.045Z');
    assert.equal(storedValueOf('52.00', t), '52.00');
  });
});
