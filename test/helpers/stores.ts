import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Store } from '../../src/storage/store.js';

export type StoreKind = 'sqlite' | 'postgres';

/** The stores this run covers (scripts/test.mjs sets TEST_STORES). */
export const STORES: StoreKind[] = (process.env.TEST_STORES ?? 'sqlite,postgres').split(',').filter((s): s is StoreKind => s === 'sqlite' || s === 'postgres');

const PG_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  kind: StoreKind;
  /** DATABASE_URL of this database (for child processes and the CLI). */
  url: string;
  /** Drops the database (the store must be closed first). */
  drop(): Promise<void>;
}

/** A fresh, empty database of the given kind; nothing shared with other tests. */
export async function createTestDatabase(kind: StoreKind): Promise<TestDatabase> {
  const name = `opencity_t_${randomBytes(6).toString('hex')}`;
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-test-'));
    return { kind, url: `sqlite:${path.join(dir, 'opencity.db')}`, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  const template = process.env.TEST_PG_TEMPLATE;
  await admin(`create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { kind, url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** A fresh, migrated store and a function that closes and drops it. */
export async function createTestStore(kind: StoreKind): Promise<{ store: Store; db: TestDatabase; dispose(): Promise<void> }> {
  const db = await createTestDatabase(kind);
  const store = Store.open(db.url);
  await store.migrate();
  return {
    store, db,
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
}
