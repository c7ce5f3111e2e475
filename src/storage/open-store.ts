import type { BulkWriter } from './bulk-writer.js';
import { openPostgresBulkWriter } from './postgres/bulk-writer.js';
import { openPostgres } from './postgres/open.js';
import { openSqliteBulkWriter } from './sqlite/bulk-writer.js';
import { openSqlite } from './sqlite/open.js';
import type { StoreParts } from './store-parts.js';

/** The one place that tells the stores apart: by the scheme of DATABASE_URL. */

const SQLITE = 'sqlite:';
const POSTGRES = /^postgres(ql)?:\/\//;

/** `changeLog`: whether asset writes record their changes (CHANGE_LOG); `timeoutMs`: the bound on each call (STORE_TIMEOUT). */
export function openStoreParts(databaseUrl: string, changeLog: boolean, timeoutMs: number): StoreParts {
  if (databaseUrl.startsWith(SQLITE)) return openSqlite(databaseUrl.slice(SQLITE.length), changeLog, timeoutMs);
  if (POSTGRES.test(databaseUrl)) return openPostgres(databaseUrl, changeLog, timeoutMs);
  throw new Error(`unsupported DATABASE_URL: ${databaseUrl}`);
}

/** A writer of big batches on a connection of its own (loading a generated data set). */
export async function openBulkWriter(databaseUrl: string): Promise<BulkWriter> {
  if (databaseUrl.startsWith(SQLITE)) return openSqliteBulkWriter(databaseUrl.slice(SQLITE.length));
  if (POSTGRES.test(databaseUrl)) return openPostgresBulkWriter(databaseUrl);
  throw new Error(`unsupported DATABASE_URL: ${databaseUrl}`);
}
