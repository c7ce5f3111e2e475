import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Store } from '../../src/storage/store.js';
import { opencityCommand, ROOT, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/** `opencity demo --live`: a bounded run, then one stopped with Ctrl-C, on a SQLite file. */
describe('opencity demo --live', { timeout: 300_000 }, () => {
  let db: TestDatabase;
  const updates = async (): Promise<number> => {
    const store = Store.open(db.url);
    try {
      const row = await store.read.selectFrom('changes').select((eb) => eb.fn.countAll<number>().as('n')).where('kind', '=', 'update').executeTakeFirst();
      return Number(row?.n ?? 0);
    } finally {
      await store.close();
    }
  };

  before(async () => {
    db = await createTestDatabase('sqlite');
  });
  after(async () => {
    await db?.drop();
  });

  it('loads the city, then pushes the asked number of updates and stops', async () => {
    const run = await runCli(['demo', '--days', '1', '--step', '720', '--live', '--rate', '50', '--count', '7'], { DATABASE_URL: db.url }, 240_000);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /pushing 50 live updates a second \(7 in all\)/);
    assert.match(run.stderr, /live updates pushed: 7\n/);
  });

  it('pushes until Ctrl-C, then stops cleanly, having counted every update it made', async () => {
    const before = await updates();
    const child = spawn(process.execPath, [...opencityCommand(), 'demo', '--days', '1', '--step', '720', '--live', '--rate', '20'], {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', DATABASE_URL: db.url }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const killer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/Ctrl-C stops/.test(stderr)) resolve();
      });
      void exited.then(() => resolve());
    });
    // The interrupt a terminal sends, while it pushes.
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(killer);
    assert.equal(code, 0, stderr);
    const pushed = Number(/live updates pushed: (\d+)/.exec(stderr)?.[1] ?? -1);
    assert.ok(pushed >= 0, stderr);
    assert.equal(await updates() - before, pushed + (await updatesOfReload(stderr)));
  });
});

/** The updates the demo's second load itself made (reports missing since the first run), from its summary. */
function updatesOfReload(stderr: string): number {
  return Number(/requests:\s+[\d,]+ creates, ([\d,]+) updates/.exec(stderr)?.[1]?.replace(/,/g, '') ?? 0);
}
