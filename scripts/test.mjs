#!/usr/bin/env node
// Runs the test suite on both stores: SQLite always, PostgreSQL when it answers
// (REQUIRE_POSTGRES=1 makes its absence a failure). Each run makes a template
// database with PostGIS, from which every test file clones its own database;
// everything is dropped at the end.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';

const args = process.argv.slice(2);
const heavy = args.includes('--heavy');
const explicit = args.filter((a) => !a.startsWith('--'));
const pgUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const template = `opencity_tpl_${process.pid}_${Date.now().toString(36)}`;

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return findTests(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  }).sort();
}

async function adminQuery(url, sql) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

async function preparePostgres() {
  try {
    const available = await adminQuery(pgUrl, "select 1 from pg_available_extensions where name = 'postgis'");
    if (available.rowCount === 0) return 'PostGIS is not installed on that server (apt-get install postgresql-15-postgis-3)';
    await adminQuery(pgUrl, `create database ${template}`);
    const url = new URL(pgUrl);
    url.pathname = `/${template}`;
    await adminQuery(url.toString(), 'create extension if not exists postgis');
    return undefined;
  } catch (error) {
    return error.message;
  }
}

const files = explicit.length > 0 ? explicit : findTests(heavy ? 'test/heavy' : 'test').filter((f) => heavy || !f.startsWith(path.join('test', 'heavy')));
if (files.length === 0) {
  console.log('no test files found');
  process.exit(0);
}
const problem = await preparePostgres();
const env = { ...process.env, TEST_POSTGRES_URL: pgUrl };
if (problem) {
  const line = `!!! PostgreSQL is not usable at ${pgUrl} (${problem}): only the SQLite half of the tests runs !!!`;
  if (process.env.REQUIRE_POSTGRES === '1') {
    console.error(line.replace('only the SQLite half of the tests runs', 'REQUIRE_POSTGRES=1, failing'));
    process.exit(1);
  }
  console.error(line);
  env.TEST_STORES = 'sqlite';
} else {
  env.TEST_STORES = process.env.TEST_STORES ?? 'sqlite,postgres';
  env.TEST_PG_TEMPLATE = template;
}

// The whole suite, and the command-line and browser tests, run the build: it is made here, once,
// when its sources changed (scripts/build-if-stale.mjs), before the tests run side by side. The
// `opencity` commands then start from the bundle, seconds sooner each than from the sources
// (test/helpers/cli.ts), and no browser test rebuilds the page another is serving
// (test/helpers/chromium.ts).
if (explicit.length === 0 || files.some((f) => ['e2e', 'cli'].some((dir) => path.normalize(f).split(path.sep).includes(dir)))) {
  const built = spawnSync(process.execPath, [path.join('scripts', 'build-if-stale.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  env.OPENCITY_WEB_BUILT = '1';
}

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=600000', ...files], { stdio: 'inherit', env });
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
if (!problem) {
  await adminQuery(pgUrl, `drop database if exists ${template} with (force)`).catch((e) => console.error(`could not drop ${template}: ${e.message}`));
}
process.exit(code);
