import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runTs } from '../helpers/cli.js';

describe('server start', () => {
  it('stops with one clear line and a non-zero exit on a bad DATABASE_URL', async () => {
    const r = await runTs('src/main.ts', [], { DATABASE_URL: 'mysql://nowhere', PORT: '0' });
    assert.notEqual(r.code, 0);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0] as string, /DATABASE_URL/);
  });

  it('stops with one clear line and a non-zero exit on a bad PORT', async () => {
    const r = await runTs('src/main.ts', [], { PORT: 'http' });
    assert.notEqual(r.code, 0);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1);
    assert.match(lines[0] as string, /PORT/);
  });

  it('stops with a clear line when PostgreSQL cannot be reached', async () => {
    const r = await runTs('src/main.ts', [], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', PORT: '0' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /opencity: cannot start/);
  });
});
