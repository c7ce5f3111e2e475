import { sql } from 'kysely';
import type { Dialect } from '../ports.js';
import { entityQueries } from '../shared/entity-queries.js';
import { sqliteChanges } from './changes.js';
import { sqliteAssetQueries } from './asset-queries.js';
import { sqliteAssetWrites } from './asset-writes.js';
import { sqliteReadingQueries } from './reading-queries.js';

const UNAVAILABLE_CODES = ['SQLITE_BUSY', 'SQLITE_CANTOPEN', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_READONLY'];

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  // The write lock is taken at once: a batch never fails half-way for want of it.
  migrationStep: (migration) => migration.sqlite,
  beginSql: 'begin immediate',
  assetWrites: sqliteAssetWrites,
  changes: sqliteChanges,
  assetQueries: sqliteAssetQueries,
  readings: sqliteReadingQueries,
  entityQueries,
  async commitMarker(read, write) {
    // The reading connection's data_version moves with every commit of another connection; an
    // in-memory store reads on the writer's own connection, whose commits it does not show.
    if (read === write) return undefined;
    const result = await sql<{ data_version: number }>`pragma data_version`.execute(read);
    return String(result.rows[0]?.data_version);
  },
  isUniqueViolation(error) {
    return error instanceof Error && (error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT') === true
      && /UNIQUE|PRIMARY KEY/.test(error.message);
  },
  classifyError(error) {
    const code = (error as { code?: string } | null)?.code ?? '';
    return UNAVAILABLE_CODES.some((c) => code.startsWith(c)) ? 'unavailable' : undefined;
  },
};
