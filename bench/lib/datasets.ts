import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { adminQuery, createBenchDatabase, dropPostgresDatabase, postgresDatabaseExists, postgresUrlOf, type BenchDatabase, type StoreKind } from './databases.js';
import { GENERATOR_VERSION, generateDataset, type DatasetInfo } from './generate.js';

/**
 * Generated data sets, made once and reused: generating a million assets takes
 * minutes, cloning one seconds. SQLite data sets are files under
 * $TMPDIR/opencity-bench-datasets/ (copied for each run), PostgreSQL ones
 * template databases `opencity_bench_ds_*` (cloned for each run). The key holds
 * the size, the generator version and the schema, so a new migration or a
 * change of the generator makes a new data set.
 */

export interface DatasetSize {
  assets: number;
  readings: number;
}

export const DATASET_DIR = path.join(os.tmpdir(), 'opencity-bench-datasets');
export const POSTGRES_DATASET_PREFIX = 'opencity_bench_ds_';

/** A cached data set older than this is made again, so that "online" still means something. */
const MAX_AGE_MS = 24 * 3_600_000;

export function datasetKey(size: DatasetSize): string {
  const schema = createHash('sha256').update(MIGRATIONS.map((m) => m.name).join('\n')).digest('hex').slice(0, 8);
  return `a${size.assets}_r${size.readings}_g${GENERATOR_VERSION}_s${schema}`;
}

const fresh = (info: DatasetInfo | undefined): info is DatasetInfo => info !== undefined && Date.now() - info.generatedAt < MAX_AGE_MS;

export type Log = (line: string) => void;
const stderr: Log = (line) => process.stderr.write(`${line}\n`);

function progressLogger(log: Log, label: string) {
  let last = 0;
  const started = performance.now();
  return (phase: string, done: number, total: number) => {
    const now = performance.now();
    if (now - last < 5000 && done < total) return;
    last = now;
    log(`  ${label}: ${phase} ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} (${((now - started) / 1000).toFixed(0)} s)`);
  };
}

// SQLite -----------------------------------------------------------------

function sqliteFiles(size: DatasetSize) {
  const base = path.join(DATASET_DIR, datasetKey(size));
  return { db: `${base}.db`, meta: `${base}.json` };
}

function readSqliteInfo(size: DatasetSize): DatasetInfo | undefined {
  const { db, meta } = sqliteFiles(size);
  if (!fs.existsSync(db) || !fs.existsSync(meta)) return undefined;
  return JSON.parse(fs.readFileSync(meta, 'utf8')) as DatasetInfo;
}

async function buildSqlite(size: DatasetSize, log: Log): Promise<DatasetInfo> {
  fs.mkdirSync(DATASET_DIR, { recursive: true });
  const { db, meta } = sqliteFiles(size);
  const building = `${db}.building-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    const started = performance.now();
    const info = await generateDataset(`sqlite:${building}`, size, progressLogger(log, 'sqlite'));
    // Rename is atomic: a concurrent run sees either no data set or a whole one.
    fs.renameSync(building, db);
    fs.writeFileSync(meta, JSON.stringify(info));
    log(`  sqlite: generated in ${((performance.now() - started) / 1000).toFixed(0)} s (${(fs.statSync(db).size / 2 ** 20).toFixed(0)} MiB)`);
    return info;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${building}${suffix}`, { force: true });
  }
}

// PostgreSQL -------------------------------------------------------------

const templateName = (size: DatasetSize) => `${POSTGRES_DATASET_PREFIX}${datasetKey(size)}`.toLowerCase();

async function readPostgresInfo(size: DatasetSize): Promise<DatasetInfo | undefined> {
  const name = templateName(size);
  const result = await adminQuery(`select shobj_description(oid, 'pg_database') as info from pg_database where datname = '${name}'`);
  const text = result.rows[0]?.info as string | null | undefined;
  return text ? (JSON.parse(text) as DatasetInfo) : undefined;
}

async function buildPostgres(size: DatasetSize, log: Log): Promise<DatasetInfo> {
  const name = templateName(size);
  const building = `${POSTGRES_DATASET_PREFIX}building_${randomBytes(4).toString('hex')}`;
  await adminQuery(`create database ${building}`);
  try {
    const started = performance.now();
    const info = await generateDataset(postgresUrlOf(building), size, progressLogger(log, 'postgres'));
    await dropPostgresDatabase(name);
    await adminQuery(`alter database ${building} rename to ${name}`);
    await adminQuery(`comment on database ${name} is '${JSON.stringify(info).replace(/'/g, "''")}'`);
    log(`  postgres: generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return info;
  } finally {
    await dropPostgresDatabase(building);
  }
}

// ------------------------------------------------------------------------

/** Makes sure the data set of `size` exists and is fresh on `kind`; generates it otherwise. */
export async function ensureDataset(kind: StoreKind, size: DatasetSize, options: { force?: boolean; log?: Log } = {}): Promise<DatasetInfo> {
  const log = options.log ?? stderr;
  const cached = kind === 'sqlite' ? readSqliteInfo(size) : await readPostgresInfo(size);
  if (!options.force && fresh(cached)) return cached;
  log(`bench: generating a data set of ${size.assets.toLocaleString('en-US')} assets and ${size.readings.toLocaleString('en-US')} readings on ${kind} (once; cached for a day)…`);
  return kind === 'sqlite' ? buildSqlite(size, log) : buildPostgres(size, log);
}

/** A fresh database holding a copy of the data set of `size` (generated first if need be). */
export async function datasetDatabase(kind: StoreKind, size: DatasetSize): Promise<BenchDatabase & { dataset: DatasetInfo }> {
  const dataset = await ensureDataset(kind, size);
  const db = kind === 'sqlite'
    ? await createBenchDatabase('sqlite', { sqliteSeedFile: sqliteFiles(size).db })
    : await createBenchDatabase('postgres', { postgresTemplate: templateName(size) });
  return { ...db, dataset };
}

export interface CachedDataset {
  kind: StoreKind;
  name: string;
  info: DatasetInfo | undefined;
}

export async function listDatasets(): Promise<CachedDataset[]> {
  const out: CachedDataset[] = [];
  if (fs.existsSync(DATASET_DIR)) {
    for (const file of fs.readdirSync(DATASET_DIR).filter((f) => f.endsWith('.db')).sort()) {
      const meta = path.join(DATASET_DIR, file.replace(/\.db$/, '.json'));
      out.push({ kind: 'sqlite', name: path.join(DATASET_DIR, file), info: fs.existsSync(meta) ? (JSON.parse(fs.readFileSync(meta, 'utf8')) as DatasetInfo) : undefined });
    }
  }
  try {
    const result = await adminQuery(`select datname, shobj_description(oid, 'pg_database') as info from pg_database where datname like '${POSTGRES_DATASET_PREFIX}%' order by datname`);
    for (const row of result.rows as Array<{ datname: string; info: string | null }>) {
      out.push({ kind: 'postgres', name: row.datname, info: row.info ? (JSON.parse(row.info) as DatasetInfo) : undefined });
    }
  } catch {
    // PostgreSQL not reachable: only the SQLite data sets are listed.
  }
  return out;
}

export async function removeDatasets(): Promise<number> {
  const all = await listDatasets();
  for (const d of all) {
    if (d.kind === 'sqlite') for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${d.name}${suffix}`, { force: true });
    else if (await postgresDatabaseExists(d.name)) await dropPostgresDatabase(d.name);
  }
  for (const file of fs.existsSync(DATASET_DIR) ? fs.readdirSync(DATASET_DIR) : []) fs.rmSync(path.join(DATASET_DIR, file), { force: true });
  return all.length;
}
