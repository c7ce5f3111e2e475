import type { Kysely } from 'kysely';
import type { ChangeAnnouncer, ListenForChanges } from './change-log.js';
import type { Dialect } from './ports.js';
import type { Database } from './schema.js';
import type { BatchCommitter } from './write-batch.js';

/** What a dialect's opening (./sqlite/open.ts, ./postgres/open.ts) gives the store. */
export interface StoreParts {
  /** The connection writes (and migrations, unless openMigrationConnection) run on. */
  write: Kysely<Database>;
  /** Connection for reads (the same as `write` where the store has one connection or one pool). */
  read: Kysely<Database>;
  /** Connection for reads that walk much of the store once, such as exports (omitted: `read`). */
  scan?: Kysely<Database>;
  dialect: Dialect;
  /** How the write pipeline's batches are committed. */
  committer: BatchCommitter;
  /** The store's caches and threads count in the server process's memory. */
  livesInProcess: boolean;
  poolStats(): { total: number; idle: number; waiting: number };
  /** Can the store take writes now? (Omitted: whenever it can be read.) */
  writable?: () => boolean;
  /** Ends what runs beside the connections, once they are closed. */
  closeBeside?: () => Promise<void>;
  /** Tells other processes of the changes this one committed (omitted: they look for themselves). */
  announcer?: ChangeAnnouncer;
  /** Hears of the changes other processes commit (omitted: only this process's, and a look now and then). */
  listen?: ListenForChanges;
  /** A connection of its own for migrations, closed after them. */
  openMigrationConnection?: () => Kysely<Database>;
}
