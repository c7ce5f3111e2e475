import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreParts } from '../store-parts.js';
import { postgresCommitter } from './committer.js';
import { changeAnnouncer, listenForChanges } from './changes.js';
import { postgresDialect } from './dialect.js';
import { PreparingPool } from './preparing-pool.js';

// BIGINT columns hold epoch milliseconds and counters: safe as JS numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/** Migrations may build indexes over big tables: their connection waits as long as a statement takes. */
function migrationConnection(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('error', () => {});
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/**
 * Every call is bounded by `timeoutMs` (STORE_TIMEOUT): getting a connection, and each
 * statement, cancelled by the server (statement_timeout) and, when the server or the network
 * does not answer at all, given up by the pool (./preparing-pool.ts), which discards the
 * connection.
 */
export function openPostgres(url: string, changeLog: boolean, timeoutMs: number, poolSize = 10): StoreParts {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeoutMs,
    idleTimeoutMillis: 30_000,
    // The server cancels a slow statement a little before the driver gives up on an answer: a live
    // server's cancel keeps the connection, and only a silent one is cut (and the connection dropped).
    statement_timeout: Math.max(1, timeoutMs - Math.min(500, Math.floor(timeoutMs / 5))),
  });
  // A dropped connection must not crash the process: its pending query fails
  // (and is answered 503), the pool discards it, and the next query reconnects.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PreparingPool(pool, timeoutMs) }) });
  return {
    write: db,
    read: db,
    dialect: postgresDialect,
    committer: postgresCommitter(db, postgresDialect, changeLog),
    livesInProcess: false,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    announcer: changeAnnouncer(db),
    listen: (onSeq, onGap) => listenForChanges(url, onSeq, onGap),
    openMigrationConnection: () => migrationConnection(url),
    // Kysely ends the pool only if it ever used it (migrations have a connection of their own): a closed store takes no more writes.
    closeBeside: async () => {
      if (!pool.ending) await pool.end();
    },
  };
}
