import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteChunks, utf8Bound } from '../../src/http/byte-chunks.js';

const write = (chunks: ByteChunks, text: string) => {
  chunks.reserve(utf8Bound(text));
  chunks.text(text);
};

test('chunks hold the text as UTF-8, never cut inside a reserved piece', () => {
  const chunks = new ByteChunks(8);
  const pieces = ['abc', 'ñé', '😀 ok', 'a longer piece than a chunk', '', 'x'];
  for (const piece of pieces) write(chunks, piece);
  const taken = chunks.take();
  assert.equal(Buffer.concat(taken).toString('utf8'), pieces.join(''));
  // Each reserved piece lies whole in one chunk.
  assert.ok(taken.some((c) => c.toString('utf8').startsWith('a longer piece than a chunk')));
  assert.deepEqual(chunks.take(), []);
});

test('what is written after a take goes into new chunks, the ones taken unchanged', () => {
  const chunks = new ByteChunks(64);
  write(chunks, 'first');
  const first = chunks.take();
  write(chunks, 'second');
  chunks.reserve(3);
  chunks.bytes(Buffer.from('!!!'));
  const second = chunks.take();
  assert.equal(Buffer.concat(first).toString(), 'first');
  assert.equal(Buffer.concat(second).toString(), 'second!!!');
});
