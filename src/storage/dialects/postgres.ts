import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Database } from '../schema.js';
import { appendPostgresChanges, listenForChanges } from './postgres-changes.js';
import type { ListenForChanges } from '../change-log.js';
import type { DialectAdapter, Executor, GeoBox } from './adapter.js';
import { PreparingPool } from './postgres-statements.js';

// BIGINT columns hold epoch milliseconds and counters: safe as JS numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface PostgresHandles {
  write: Kysely<Database>;
  read: Kysely<Database>;
  adapter: DialectAdapter;
  pool: pg.Pool;
  /** Hears of the changes every process commits, on a connection of its own. */
  listen: ListenForChanges;
}

export function openPostgres(url: string, poolSize = 10): PostgresHandles {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: 30_000,
    // A connection that hangs (network gone, no reset) must not hold a request forever.
    query_timeout: 35_000,
  });
  // A dropped connection must not crash the process: its pending query fails
  // (and is answered 503), the pool discards it, and the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PreparingPool(pool) }) });
  return { write: db, read: db, adapter: postgresAdapter, pool, listen: (onSeq, onGap) => listenForChanges(url, onSeq, onGap) };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

export const postgresAdapter: DialectAdapter = {
  name: 'postgres',
  beginSql: 'begin',
  async indexPositions() {
    // The geo indexes are on the row's own columns, which the statements that create or move an asset write.
  },
  async unindexPosition() {
    // The index of live city positions is partial on the row's own columns: it follows the delete by itself.
  },
  async seqsInBox(db: Executor, box: GeoBox) {
    const result = await sql<{ seq: number }>`select seq from assets where geog && ST_MakeEnvelope(${box.minLon}, ${box.minLat}, ${box.maxLon}, ${box.maxLat}, 4326)::geography`.execute(db);
    return result.rows.map((r) => r.seq);
  },
  appendChanges: appendPostgresChanges,
  isUniqueViolation(error: unknown) {
    return (error as { code?: string } | null)?.code === '23505';
  },
  isUnavailable(error: unknown) {
    const e = error as { code?: string; message?: string } | null;
    if (!e) return false;
    if (e.code && UNAVAILABLE_CODES.has(e.code)) return true;
    return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '');
  },
};
