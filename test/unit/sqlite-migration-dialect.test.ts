import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql, type Migration } from 'kysely';
import { SqliteMigrationDialect } from '../../src/storage/sqlite/migration-dialect.js';

/** A migration that makes a table, then fails: on SQLite as on PostgreSQL, nothing of it may stay. */
const failingHalfWay: Migration = {
  async up(db) {
    await sql`create table made_first (id integer primary key)`.execute(db);
    throw new Error('killed here');
  },
};

const tablesOf = (file: string): string[] => {
  const conn = new SQLite(file, { readonly: true });
  try {
    return (conn.prepare("select name from sqlite_master where type = 'table' order by name").all() as Array<{ name: string }>).map((r) => r.name);
  } finally {
    conn.close();
  }
};

describe('SQLite migrations', () => {
  it('run each migration and its record in one transaction: one that fails half-way leaves nothing, the one before stays', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-migrations-'));
    const file = path.join(dir, 'store.db');
    const db = new Kysely<unknown>({ dialect: new SqliteMigrationDialect({ database: new SQLite(file) }) });
    try {
      const provider = {
        getMigrations: async (): Promise<Record<string, Migration>> => ({
          '0001-ok': { up: async (trx) => { await sql`create table kept (id integer primary key)`.execute(trx); } },
          '0002-fails': failingHalfWay,
        }),
      };
      const migrator = new Migrator({ db, provider });
      assert.deepEqual((await migrator.migrateUp()).results?.map((r) => r.status), ['Success']);
      const failed = await migrator.migrateUp();
      assert.equal((failed.error as Error).message, 'killed here');
      const tables = tablesOf(file);
      assert.ok(tables.includes('kept'));
      assert.ok(!tables.includes('made_first'), 'the failed migration left its table');
      const recorded = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
      assert.deepEqual(recorded.rows.map((r) => r.name), ['0001-ok']);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
