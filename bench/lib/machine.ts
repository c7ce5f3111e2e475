import os from 'node:os';
import SQLite from 'better-sqlite3';
import { adminQuery } from './databases.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  sqlite: string;
  postgres: string;
  /** 1-minute load average when the run began: other work on the machine skews every figure. */
  loadAverage: number;
}

async function postgresVersion(): Promise<string> {
  try {
    const version = await adminQuery('show server_version');
    const server = String(version.rows[0]?.server_version ?? '?').split(' ')[0];
    const postgis = await adminQuery("select default_version from pg_available_extensions where name = 'postgis'");
    const gis = postgis.rows[0]?.default_version as string | undefined;
    return gis ? `${server} (PostGIS ${gis})` : `${server} (no PostGIS)`;
  } catch {
    return 'not reachable';
  }
}

/** What the figures were measured on: they mean little without it. */
export async function describeMachine(): Promise<Machine> {
  const cpus = os.cpus();
  const db = new SQLite(':memory:');
  const sqlite = (db.prepare('select sqlite_version() as v').get() as { v: string }).v;
  db.close();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    sqlite,
    postgres: await postgresVersion(),
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function machineLine(m: Machine): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB RAM, Node ${m.node}, SQLite ${m.sqlite}, PostgreSQL ${m.postgres}; load average ${m.loadAverage} at start`;
}
