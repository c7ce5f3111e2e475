import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { Store } from '../../src/storage/store.js';
import { ROOT } from '../helpers/cli.js';
import { startServer } from '../helpers/hardening-server.js';
import { STORES, createTestDatabase, type StoreKind, type TestDatabase } from '../helpers/stores.js';

/**
 * Kills during migrations: a first start (an empty store) and an upgrade (a
 * store a few migrations behind) are killed with SIGKILL at moments spread over
 * the time their migrations take; the next start then migrates and finds the
 * schema of a start that was never interrupted, and a server starts on it.
 */

const MOMENTS = 20;
/** Processes started ahead of the one killed. */
const AHEAD = 3;
/** The level an upgrade starts from: the first half of the migrations. */
const UPGRADE_FROM = MIGRATIONS[Math.floor(MIGRATIONS.length / 2) - 1]!.name;

interface Migrating {
  child: ChildProcess;
  ready: Promise<void>;
  /** The migrations' time, once it said so; the exit code or signal otherwise. */
  exited: Promise<{ ms?: number; ended: number | string }>;
}

/**
 * ../helpers/migrating-process.ts bundled into one file (with the SQLite writer thread's module beside it,
 * where the store looks for it), as scripts/bundle.mjs bundles the server: it starts in a fraction of
 * the time the sources take, so that many processes can be started and killed.
 */
const BUNDLE_DIR = path.join(ROOT, 'dist', 'test-migrating');
const bundled = build({
  entryPoints: { 'migrating-process': path.join(ROOT, 'test/helpers/migrating-process.ts'), 'sqlite-writer': path.join(ROOT, 'src/storage/sqlite/writer-thread.ts') },
  outdir: BUNDLE_DIR,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  external: ['better-sqlite3', 'pg-native', 'pino'],
  banner: { js: "import { createRequire as openCityRequire } from 'node:module'; const require = openCityRequire(import.meta.url);" },
});

/** A process that opened the store and waits for the word to migrate. */
function spawnMigrating(url: string): Migrating {
  const child = spawn(process.execPath, [path.join(BUNDLE_DIR, 'migrating-process.js'), url], {
    cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => { markReady = resolve; });
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('ready\n')) markReady();
  });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  // A process that died before its word (reported below) closed its input: writing to it is no error of the test's.
  child.stdin!.on('error', () => undefined);
  const exited = new Promise<{ ms?: number; ended: number | string }>((resolve) => child.on('exit', (code, signal) => {
    markReady();
    const ms = /migrated (\d+)/.exec(out)?.[1];
    if (code !== 0 && code !== null) process.stderr.write(err.slice(-2000));
    resolve({ ms: ms === undefined ? undefined : Number(ms), ended: code ?? signal ?? -1 });
  }));
  return { child, ready, exited };
}

/** Tables, their columns and the recorded migrations: what a start leaves behind, in a form both stores give. */
async function schemaOf(store: Store): Promise<string[]> {
  const tables = await store.read.introspection.getTables({ withInternalKyselyTables: true });
  const shape = tables
    .filter((t) => !['spatial_ref_sys', 'geography_columns', 'geometry_columns'].includes(t.name) && !t.name.startsWith('sqlite_'))
    .map((t) => `${t.schema ?? ''}.${t.name}(${t.columns.map((c) => `${c.name}:${c.dataType}:${c.isNullable}`).sort().join(',')})`)
    .sort();
  return [...shape, ...(await recorded(store)).map((name) => `migration ${name}`).sort()];
}

/** The migrations a store has recorded (none when the record table is not there yet). */
async function recorded(store: Store): Promise<string[]> {
  const tables = await store.read.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return [];
  const rows = await store.read.selectFrom('kysely_migration' as never).select('name' as never).execute() as Array<{ name: string }>;
  return rows.map((r) => r.name);
}

/** Opens the store at `url`, runs `body` on it, closes it. */
async function withStore<T>(url: string, body: (store: Store) => Promise<T>): Promise<T> {
  const store = Store.open(url);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

const migrated = (url: string, until?: string) => withStore(url, (store) => store.migrate(until));

async function killedDuringMigration(kind: StoreKind, from: string | undefined, expected: string[]): Promise<string> {
  const prepare = async (): Promise<TestDatabase> => {
    const db = await createTestDatabase(kind);
    if (from) await migrated(db.url, from);
    return db;
  };
  // How long the migrations take, from the word to migrate, in a process like the ones killed.
  const calibration = await prepare();
  let span: number;
  try {
    const probe = spawnMigrating(calibration.url);
    await probe.ready;
    probe.child.stdin!.write('go\n');
    const { ms, ended } = await probe.exited;
    assert.equal(ended, 0, 'an uninterrupted migration fails');
    span = Math.max(ms ?? 0, 5);
    assert.deepEqual(await withStore(calibration.url, schemaOf), expected);
  } finally {
    await calibration.drop();
  }

  const levels: number[] = [];
  // The next processes start (and load their code) while the one before is killed.
  const started: Array<Promise<{ db: TestDatabase; proc: Migrating }>> = [];
  const startNext = () => {
    if (started.length < MOMENTS) started.push(prepare().then((db) => ({ db, proc: spawnMigrating(db.url) })));
  };
  for (let i = 0; i < AHEAD; i++) startNext();
  let moment = 0;
  try {
    for (; moment < MOMENTS; moment++) await killOne(moment, await started[moment]!);
  } finally {
    // A failure leaves the processes started ahead: they end by their pids, their stores are dropped.
    for (const rest of started.slice(moment + 1)) {
      const { db, proc } = await rest;
      if (proc.child.exitCode === null && proc.child.signalCode === null) process.kill(proc.child.pid!, 'SIGKILL');
      await proc.exited;
      await db.drop();
    }
  }
  return `migrations ${span} ms; recorded when killed: ${levels.join(',')}`;

  async function killOne(moment: number, { db, proc }: { db: TestDatabase; proc: Migrating }): Promise<void> {
    try {
      await proc.ready;
      const delay = (span * moment) / (MOMENTS - 1);
      proc.child.stdin!.write('go\n');
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (proc.child.exitCode === null && proc.child.signalCode === null) process.kill(proc.child.pid!, 'SIGKILL');
      await proc.exited;
      startNext();
      await withStore(db.url, async (store) => {
        levels.push((await recorded(store)).length);
        // The next start: its migrations succeed and leave the schema of a start never interrupted.
        await store.migrate();
        assert.deepEqual(await schemaOf(store), expected, `killed ${delay.toFixed(0)} ms into the migrations: the schema differs`);
      });
      if (moment === MOMENTS - 1) {
        const server = await startServer({ DATABASE_URL: db.url });
        try {
          assert.equal((await fetch(`${server.url}/ready`)).status, 200);
        } finally {
          await server.stop('SIGKILL');
        }
      }
    } finally {
      await db.drop();
    }
  }
}

for (const kind of STORES) {
  describe(`SIGKILL during migrations [${kind}]`, () => {
    before(async () => {
      await bundled;
    });

    it(`a first start killed at ${MOMENTS} moments: every next start succeeds`, async () => {
      const reference = await createTestDatabase(kind);
      try {
        await migrated(reference.url);
        const report = await killedDuringMigration(kind, undefined, await withStore(reference.url, schemaOf));
        process.stdout.write(`# migration-kills [${kind}] first start: ${report}\n`);
      } finally {
        await reference.drop();
      }
    });

    it(`an upgrade from ${UPGRADE_FROM} killed at ${MOMENTS} moments: every next start succeeds`, async () => {
      const reference = await createTestDatabase(kind);
      try {
        await migrated(reference.url, UPGRADE_FROM);
        await migrated(reference.url);
        const report = await killedDuringMigration(kind, UPGRADE_FROM, await withStore(reference.url, schemaOf));
        process.stdout.write(`# migration-kills [${kind}] upgrade: ${report}\n`);
      } finally {
        await reference.drop();
      }
    });
  });
}
