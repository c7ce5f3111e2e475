import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { startCheckpointer } from '../../src/storage/sqlite/checkpointer.js';

/** Waits for `condition`, for at most `ms`: the checkpoints run on a thread of their own, on its own clock. */
async function eventually(what: string, condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`never: ${what}`);
    await delay(5);
  }
}

/** A store in WAL mode whose writer never checkpoints by itself: its writes stay in the WAL until checkpointed. */
function walStore() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-checkpointer-'));
  const file = path.join(dir, 'store.db');
  const conn = new Database(file);
  conn.pragma('journal_mode = WAL');
  conn.pragma('wal_autocheckpoint = 0');
  conn.exec('create table t (id integer primary key, v text)');
  const insert = conn.prepare('insert into t (v) values (?)');
  return {
    file,
    write: conn.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(100));
    }),
    /** The database file itself, without its WAL: it grows as checkpoints copy pages back. */
    fileBytes: () => fs.statSync(file).size,
    close() {
      conn.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('SQLite checkpointer', () => {
  it('runs a thread only while writes come: started by a write, ended once they stop, started again by the next', async () => {
    const store = walStore();
    const checkpointer = startCheckpointer(store.file, { intervalMs: 10, delayMs: 0, idleMs: 100, startAfterWrites: 1 });
    try {
      store.write();
      const written = store.fileBytes();
      assert.equal(checkpointer.running, false);

      checkpointer.wrote();
      await eventually('a thread runs', () => checkpointer.running);
      await eventually('the WAL is copied back into the file', () => store.fileBytes() > written);
      await eventually('the thread ends with no write', () => !checkpointer.running);

      store.write();
      const again = store.fileBytes();
      checkpointer.wrote();
      await eventually('a thread runs again', () => checkpointer.running);
      await eventually('the new writes are copied back', () => store.fileBytes() > again);
    } finally {
      await checkpointer.stop();
      store.close();
    }
    assert.equal(checkpointer.running, false);
  });

  it('starts a thread only once writes add up', async () => {
    const store = walStore();
    const checkpointer = startCheckpointer(store.file, { intervalMs: 10, delayMs: 0, idleMs: 100, startAfterWrites: 3 });
    try {
      checkpointer.wrote();
      checkpointer.wrote();
      // A thread would have been started by a timer of no delay, which has run by now.
      await delay(0);
      assert.equal(checkpointer.running, false);
      checkpointer.wrote();
      await eventually('a thread runs', () => checkpointer.running);
    } finally {
      await checkpointer.stop();
      store.close();
    }
  });

  it('starts nothing once stopped', async () => {
    const store = walStore();
    const checkpointer = startCheckpointer(store.file, { intervalMs: 10, delayMs: 0, idleMs: 100, startAfterWrites: 1 });
    try {
      checkpointer.wrote();
      await eventually('a thread runs', () => checkpointer.running);
      await checkpointer.stop();
      assert.equal(checkpointer.running, false);
      checkpointer.wrote();
      assert.equal(checkpointer.running, false);
    } finally {
      store.close();
    }
  });
});
