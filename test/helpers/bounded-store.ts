import { Writable } from 'node:stream';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { Store } from '../../src/storage/store.js';
import type { TestDatabase } from './stores.js';
import { tokenRequest } from './identity.js';

/** A short STORE_TIMEOUT, so that tests of a hung store wait little. */
export const SHORT_STORE_TIMEOUT_MS = 300;
export const ADMIN_SECRET = 'admin-secret-of-the-bounded-store-tests';

/** Log lines of an app, as they are written, and a way to wait for one. */
export class LogLines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  private waiting: Array<{ match: (l: Record<string, unknown>) => boolean; resolve: () => void }> = [];

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    for (const text of chunk.toString('utf8').split('\n').filter((t) => t !== '')) {
      const line = JSON.parse(text) as Record<string, unknown>;
      this.lines.push(line);
      this.waiting = this.waiting.filter((w) => (w.match(line) ? (w.resolve(), false) : true));
    }
    done();
  }

  count(msg: RegExp): number {
    return this.lines.filter((l) => msg.test(String(l.msg))).length;
  }

  /** Resolves when a line whose message matches has been written (at once if one has). */
  next(msg: RegExp): Promise<void> {
    if (this.lines.some((l) => msg.test(String(l.msg)))) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ match: (l) => msg.test(String(l.msg)), resolve }));
  }
}

/** The platform on `url` with a short STORE_TIMEOUT, its log lines collected, a manual clock. */
export async function startBounded(url: string, overrides: Partial<Config> = {}): Promise<{ platform: OpenCity; log: LogLines; clock: ManualClock; close(): Promise<void> }> {
  const store = Store.open(url, { timeoutMs: SHORT_STORE_TIMEOUT_MS });
  await store.migrate();
  const log = new LogLines();
  const clock = new ManualClock();
  const platform = await buildApp({
    config: testConfig({ databaseUrl: url, storeTimeoutMs: SHORT_STORE_TIMEOUT_MS, adminSecret: ADMIN_SECRET, logLevel: 'info', ...overrides }),
    store, clock, logStream: log,
  });
  return {
    platform, log, clock,
    async close() {
      await platform.app.close();
      await store.close();
    },
  };
}

/** An access token of the bootstrap admin client, from the token endpoint. */
export async function adminAccessToken(platform: OpenCity): Promise<string> {
  const res = await tokenRequest(platform.app, { grant_type: 'client_credentials', client_id: 'opencity-admin', client_secret: ADMIN_SECRET });
  if (res.statusCode !== 200) throw new Error(`admin token: ${res.statusCode} ${res.body}`);
  return res.json().access_token as string;
}

/**
 * Holds the store's write lock from another connection, as another process would: on SQLite
 * the database's write lock, on PostgreSQL a lock on the clients table that lets reads through.
 */
export async function holdWriteLock(db: TestDatabase): Promise<() => Promise<void>> {
  if (db.kind === 'sqlite') {
    const conn = new SQLite(db.url.slice('sqlite:'.length));
    conn.exec('begin immediate');
    return async () => {
      conn.exec('rollback');
      conn.close();
    };
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('begin');
  await client.query('lock table clients in exclusive mode');
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}
