import { Migrator, sql, type Kysely } from 'kysely';
import { ChangeLog } from './change-log.js';
import { ReadingTerms } from './reading-terms.js';
import { migrationProvider } from './migrations/index.js';
import { openStoreParts } from './open-store.js';
import type { StoreErrorKind } from '../domain/errors.js';
import type { Dialect } from './ports.js';
import type { Database } from './schema.js';
import type { StoreParts } from './store-parts.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './store-timeout.js';
import { MAX_BATCH, WritePipeline } from './write-pipeline.js';

/**
 * The store: one handle on whichever database DATABASE_URL names. Repositories
 * take it; nothing outside src/storage sees Kysely, and nothing outside the
 * dialects' folders knows which database runs.
 */
export interface StoreOptions {
  /** Record every asset write in the change log (default true; CHANGE_LOG). */
  changeLog?: boolean;
  /** The longest one call to the store may take (STORE_TIMEOUT; ./store-timeout.ts). */
  timeoutMs?: number;
}

export class Store {
  /** Every write goes through here (./write-pipeline.ts). */
  readonly writes: WritePipeline;
  /** Connection the write pipeline commits on; also migrations', unless the dialect opens one for them. */
  readonly db: Kysely<Database>;
  /** Connection for reads (the same pool on PostgreSQL). */
  readonly read: Kysely<Database>;
  /**
   * Connection for reads that walk much of the store once (exports): where a
   * connection keeps a page cache in the process, this one keeps a small one,
   * so that such a walk neither fills the server's memory nor evicts what
   * other reads keep cached.
   */
  readonly scan: Kysely<Database>;
  readonly dialect: Dialect;
  /** The change log: what every committed asset write changed, in order (./change-log.ts). */
  readonly changes: ChangeLog;
  /** The numbers of readings' attribute names and types, as read (./reading-terms.ts). */
  readonly terms: ReadingTerms;

  private constructor(private readonly parts: StoreParts, timeoutMs: number) {
    this.db = parts.write;
    this.read = parts.read;
    this.scan = parts.scan ?? parts.read;
    this.dialect = parts.dialect;
    this.writes = new WritePipeline(parts.committer, (seq) => {
      this.changes.committed(seq);
      parts.announcer?.announce(seq);
    }, MAX_BATCH, timeoutMs);
    this.changes = new ChangeLog(parts.read, this.writes, parts.listen);
    this.terms = new ReadingTerms(parts.read);
  }

  static open(databaseUrl: string, options: StoreOptions = {}): Store {
    const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    return new Store(openStoreParts(databaseUrl, options.changeLog ?? true, timeoutMs), timeoutMs);
  }

  /** The store's page caches and threads count in the server process's memory (src/main.ts bounds the heap more tightly then). */
  get livesInProcess(): boolean {
    return this.parts.livesInProcess;
  }

  /** Names the database that runs, for messages and logs. */
  get name(): string {
    return this.dialect.name;
  }

  /** Applies every pending migration (or those up to `until`, included); safe to run concurrently from several processes. */
  async migrate(until?: string): Promise<string[]> {
    const db = this.parts.openMigrationConnection?.() ?? this.db;
    try {
      // Kysely's migrator takes a lock of its own, so concurrent starts are safe. One migration at a
      // time: each runs in a transaction with its record (both stores have transactional DDL), so a
      // process killed during a start leaves every migration whole or not begun, and the next start
      // goes on from there; a long upgrade keeps what it finished.
      const migrator = new Migrator({ db, provider: migrationProvider(this.dialect.migrationStep) });
      const applied: string[] = [];
      for (;;) {
        const { error, results } = await migrator.migrateUp();
        if (error) throw error;
        const done = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
        if (done.length === 0) return applied;
        applied.push(...done);
        if (until !== undefined && done.includes(until)) return applied;
      }
    } finally {
      if (db !== this.db) await db.destroy();
    }
  }

  /** Is the database reachable, for reads and writes? (readiness) */
  async ping(): Promise<boolean> {
    if (this.parts.writable?.() === false) return false;
    try {
      await sql`select 1`.execute(this.read);
      return true;
    } catch {
      return false;
    }
  }

  pool(): { total: number; idle: number; waiting: number } {
    return this.parts.poolStats();
  }

  /** What an error the store raised means to the caller; undefined: nothing the store knows of. */
  classifyError(error: unknown): StoreErrorKind | undefined {
    return this.dialect.classifyError(error);
  }

  isUnavailable(error: unknown): boolean {
    return this.classifyError(error) === 'unavailable';
  }

  async close(): Promise<void> {
    await this.changes.close();
    await this.writes.drain();
    await this.parts.committer.close?.();
    await this.parts.announcer?.close();
    await this.db.destroy();
    await this.parts.closeBeside?.();
    if (this.read !== this.db) await this.read.destroy();
    if (this.scan !== this.read) await this.scan.destroy();
  }
}
