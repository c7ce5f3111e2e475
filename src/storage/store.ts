import { Migrator, sql, type Kysely } from 'kysely';
import { ChangeLog, type ListenForChanges } from './change-log.js';
import type { Database } from './schema.js';
import type { DialectAdapter } from './dialects/adapter.js';
import { openSqlite } from './dialects/sqlite.js';
import type { WriterThread } from './dialects/sqlite-writer-thread.js';
import { openPostgres } from './dialects/postgres.js';
import { migrationProvider } from './migrations/index.js';
import { WriteQueue } from './write-queue.js';

/**
 * The store: one handle on whichever database DATABASE_URL names. Repositories
 * take it; nothing outside src/storage sees Kysely or the dialect.
 */
export interface StoreOptions {
  /** Record every asset write in the change log (default true; CHANGE_LOG). */
  changeLog?: boolean;
}

export class Store {
  readonly writes: WriteQueue;
  readonly changes: ChangeLog;

  private constructor(
    /** Connection the write queue owns; also migrations', except on a SQLite file store. */
    readonly db: Kysely<Database>,
    /** Connection for reads (the same pool on PostgreSQL). */
    readonly read: Kysely<Database>,
    readonly adapter: DialectAdapter,
    private readonly poolStats: () => { total: number; idle: number; waiting: number },
    private readonly thread: WriterThread | undefined,
    changeLog: boolean,
    listen: ListenForChanges | undefined,
    private readonly openMigrationConnection?: () => Kysely<Database>,
  ) {
    this.writes = new WriteQueue(db, adapter, thread, changeLog, (seq) => this.changes.committed(seq));
    this.changes = new ChangeLog(read, this.writes, changeLog, listen);
  }

  static open(databaseUrl: string, options: StoreOptions = {}): Store {
    const changeLog = options.changeLog ?? true;
    if (databaseUrl.startsWith('sqlite:')) {
      const file = databaseUrl.slice('sqlite:'.length);
      const h = openSqlite(file);
      return new Store(h.write, h.read, h.adapter, () => ({ total: 1, idle: 1, waiting: 0 }), h.thread, changeLog, undefined, h.openMigrationConnection);
    }
    if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
      const h = openPostgres(databaseUrl);
      return new Store(h.write, h.read, h.adapter, () => ({ total: h.pool.totalCount, idle: h.pool.idleCount, waiting: h.pool.waitingCount }), undefined, changeLog, h.listen);
    }
    throw new Error(`unsupported DATABASE_URL: ${databaseUrl}`);
  }

  /** A SQLite store lives in the server's process: its page caches and its writer's thread count in the process's memory (src/main.ts bounds the heap more tightly then). */
  get livesInProcess(): boolean {
    return this.adapter.name === 'sqlite';
  }

  get dialect(): 'sqlite' | 'postgres' {
    return this.adapter.name;
  }

  /** Applies every pending migration; safe to run concurrently from several processes. */
  async migrate(): Promise<string[]> {
    // A SQLite file store migrates on a connection of this thread: its statements need no messages,
    // and the writer's thread starts meanwhile.
    const db = this.openMigrationConnection?.() ?? this.db;
    try {
      // Kysely's migrator takes a lock of its own, so concurrent starts are safe.
      const migrator = new Migrator({ db, provider: migrationProvider(this.dialect) });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error;
      return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    } finally {
      if (db !== this.db) await db.destroy();
    }
  }

  /** Is the database reachable, for reads and writes? (readiness) */
  async ping(): Promise<boolean> {
    // Without its writer's thread a SQLite store can still be read, but not written: not ready.
    if (this.thread?.stopped) return false;
    try {
      await sql`select 1`.execute(this.read);
      return true;
    } catch {
      return false;
    }
  }

  pool(): { total: number; idle: number; waiting: number } {
    return this.poolStats();
  }

  isUnavailable(error: unknown): boolean {
    return this.adapter.isUnavailable(error);
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.writes.drain();
    await this.db.destroy();
    // The writer's thread runs from the opening, whether or not Kysely ever used it: the store ends it.
    await this.thread?.close();
    if (this.read !== this.db) await this.read.destroy();
  }
}
