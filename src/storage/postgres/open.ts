import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreParts } from '../store-parts.js';
import { committerOn } from '../write-batch.js';
import { changeAnnouncer, listenForChanges } from './changes.js';
import { postgresDialect } from './dialect.js';
import { PreparingPool } from './preparing-pool.js';

// BIGINT columns hold epoch milliseconds and counters: safe as JS numbers.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export function openPostgres(url: string, changeLog: boolean, poolSize = 10): StoreParts {
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
  return {
    write: db,
    read: db,
    dialect: postgresDialect,
    committer: committerOn(db, postgresDialect, changeLog),
    livesInProcess: false,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    announcer: changeAnnouncer(db),
    listen: (onSeq, onGap) => listenForChanges(url, onSeq, onGap),
  };
}
