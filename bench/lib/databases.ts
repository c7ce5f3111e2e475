import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type StoreKind = 'sqlite' | 'postgres';

/** The PostgreSQL server benchmarks create their databases on (superuser, trust auth). */
export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface BenchDatabase {
  kind: StoreKind;
  /** DATABASE_URL of this database. */
  url: string;
  /** Removes it (every connection to it must be closed, or is forcibly closed on PostgreSQL). */
  drop(): Promise<void>;
}

export async function adminQuery(sql: string, url = BENCH_POSTGRES_URL): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export function postgresUrlOf(database: string): string {
  const url = new URL(BENCH_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Is `name` a safe bare SQL identifier (we interpolate database names)? */
function identifier(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return name;
}

export async function postgresDatabaseExists(name: string): Promise<boolean> {
  const result = await adminQuery(`select 1 from pg_database where datname = '${identifier(name)}'`);
  return (result.rowCount ?? 0) > 0;
}

/**
 * A fresh, empty database for one run: a SQLite file in its own temporary
 * directory, or a new PostgreSQL database (optionally cloned from `template`,
 * which is how cached data sets are reused).
 */
export async function createBenchDatabase(kind: StoreKind, options: { sqliteSeedFile?: string; postgresTemplate?: string } = {}): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-bench-'));
    const file = path.join(dir, 'opencity.db');
    // A copy-on-write clone where the file system offers one, else a plain copy.
    if (options.sqliteSeedFile) {
      fs.copyFileSync(options.sqliteSeedFile, file, fs.constants.COPYFILE_FICLONE);
      // A plain copy leaves gigabytes for the kernel to write back, during the first loads otherwise.
      const fd = fs.openSync(file, 'r+');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    }
    return { kind, url: `sqlite:${file}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `opencity_bench_${randomBytes(6).toString('hex')}`;
  if (options.postgresTemplate === undefined) await adminQuery(`create database ${name}`);
  else await cloneDatabase(name, options.postgresTemplate);
  return { kind, url: postgresUrlOf(name), drop: async () => { await adminQuery(`drop database if exists ${name} with (force)`); } };
}

/**
 * Clones a data set's template. From PostgreSQL 15 a clone is by default
 * written through the shared buffers and the WAL: gigabytes of it, which
 * empty the buffers the run reads from and leave a checkpoint writing during
 * the measurement. Copying the files keeps both out of the run.
 */
async function cloneDatabase(name: string, template: string): Promise<void> {
  const version = Number((await adminQuery('show server_version_num')).rows[0]?.server_version_num ?? 0);
  await adminQuery(`create database ${name} template ${identifier(template)}${version >= 150000 ? ' strategy file_copy' : ''}`);
}

/** Drops a PostgreSQL database by name (used for cached templates). */
export async function dropPostgresDatabase(name: string): Promise<void> {
  await adminQuery(`drop database if exists ${identifier(name)} with (force)`);
}
