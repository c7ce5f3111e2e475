import { sql } from 'kysely';
import type { Dialect } from '../ports.js';
import { entityQueries } from '../shared/entity-queries.js';
import { postgresChanges } from './changes.js';
import { postgresAssetQueries } from './asset-queries.js';
import { postgresAssetWrites } from './asset-writes.js';
import { READ_TIMEOUT } from './preparing-pool.js';
import { postgresReadingQueries } from './reading-queries.js';

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

export const postgresDialect: Dialect = {
  name: 'postgres',
  migrationStep: (migration) => migration.postgres,
  // The transaction's id comes with its start (one round trip): after a commit that got no answer, it tells whether it committed.
  beginSql: 'begin; select pg_current_xact_id()::text as txid',
  async transactionFate(read, txid) {
    const result = await sql<{ status: string | null }>`select pg_xact_status(${txid}::xid8) as status`.execute(read);
    const status = result.rows[0]?.status;
    return status === 'committed' ? 'committed' : status === 'aborted' ? 'aborted' : 'unknown';
  },
  assetWrites: postgresAssetWrites,
  changes: postgresChanges,
  assetQueries: postgresAssetQueries,
  readings: postgresReadingQueries,
  entityQueries,
  async commitMarker(read) {
    // The current snapshot (running and next transaction ids) moves with every transaction that writes, in any process.
    const result = await sql<{ marker: string }>`select pg_current_snapshot()::text as marker`.execute(read);
    return result.rows[0]?.marker;
  },
  isUniqueViolation(error) {
    return (error as { code?: string } | null)?.code === '23505';
  },
  classifyError(error) {
    const e = error as { code?: string; message?: string } | null;
    if (!e) return undefined;
    if (e.code && UNAVAILABLE_CODES.has(e.code)) return 'unavailable';
    if (/Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e.message ?? '')) return 'unavailable';
    // A statement that got no answer in time (the pool gave its connection up).
    if (e.message === READ_TIMEOUT) return 'unavailable';
    // A statement cut by statement_timeout (STORE_TIMEOUT): the store is too slow to answer now.
    if (e.code === '57014') return 'unavailable';
    // Text cannot hold U+0000 (SQLSTATE 22021): a request value carrying one is the request's fault.
    if (e.code === '22021') return 'bad-character';
    return undefined;
  },
};
