import { inSession, type PreparedQuery } from './prepared-query.js';
import type { StoreReader } from './ports.js';

/**
 * Runs a prepared query on the store's read connection. For the lookups of
 * one row that most read requests start with, building and compiling the
 * query with Kysely cost more than SQLite took to run it.
 */
export function readPrepared<Params extends readonly unknown[], Row>(
  store: StoreReader, query: PreparedQuery<Params, Row>, params: Params, variant = 0,
): Promise<Row[]> {
  return inSession(store.read, store.dialect, async (session) => (await query.run(session, params, variant)).rows);
}
