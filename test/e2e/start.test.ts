import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTs } from '../helpers/cli.js';
import { startServer } from '../helpers/hardening-server.js';

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

  it('never prints a too-short OPENCITY_ADMIN_SECRET in its error', async () => {
    const r = await runTs('src/main.ts', [], { OPENCITY_ADMIN_SECRET: 'hunter2-short', PORT: '0' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /OPENCITY_ADMIN_SECRET/);
    assert.doesNotMatch(r.stderr + r.stdout, /hunter2/);
  });

  it('prints where things are, the admin secret and the next command with LOG_FORMAT=pretty, and readable log lines', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-start-'));
    const server = await startServer({ DATABASE_URL: `sqlite:${path.join(dir, 'opencity.db')}`, LOG_FORMAT: 'pretty' });
    try {
      // The welcome follows the "listening" line; wait for the line that ends it.
      await new Promise<void>((resolve) => {
        const done = () => server.output().includes('OpenCity is serving url=');
        if (done()) return resolve();
        const look = () => { if (done()) { server.child.stdout!.off('data', look); resolve(); } };
        server.child.stdout!.on('data', look);
      });
      const out = server.output();
      assert.match(out, new RegExp(`API documents +${server.url.replace(/\./g, '\\.')}/docs`));
      assert.match(out, /secret: {4}\S{20,}/);
      assert.match(out, /npx opencity site add/);
      assert.match(out, /^\d\d:\d\d:\d\d INFO {2}OpenCity is serving url=/m);
      assert.doesNotMatch(out, /^\{"level"/m);
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs JSON lines with LOG_FORMAT=json', async () => {
    const server = await startServer({ DATABASE_URL: 'sqlite::memory:', LOG_FORMAT: 'json' });
    try {
      await new Promise<void>((resolve) => {
        const done = () => server.output().includes('OpenCity is serving');
        if (done()) return resolve();
        const look = () => { if (done()) { server.child.stdout!.off('data', look); resolve(); } };
        server.child.stdout!.on('data', look);
      });
      const line = server.output().split('\n').find((l) => l.includes('OpenCity is serving')) as string;
      assert.equal((JSON.parse(line) as { msg: string }).msg, 'OpenCity is serving');
    } finally {
      await server.stop();
    }
  });
});
