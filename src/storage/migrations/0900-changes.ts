import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * The change log: one row per committed asset write, in commit order, written
 * in the same transaction as the write (src/storage/change-log.ts). Its seq
 * never goes back, even once every row has been pruned: SQLite's
 * AUTOINCREMENT never reuses a number, and PostgreSQL's identity never does.
 * Pruning walks it in seq order, which is also time order: no index on time.
 */
export const changeLog: StoreMigration = {
  name: '0900-changes',
  async sqlite(db) {
    await sql.raw(`create table changes (seq integer primary key autoincrement, ${columns('integer')})`).execute(db);
  },
  async postgres(db) {
    await sql.raw(`create table changes (seq bigint generated always as identity primary key, ${columns('bigint')})`).execute(db);
  },
};

const columns = (bigint: 'bigint' | 'integer'): string => `asset_id text not null, asset_type text not null, site text not null, kind text not null,
  attrs text not null, committed_at ${bigint} not null`;
