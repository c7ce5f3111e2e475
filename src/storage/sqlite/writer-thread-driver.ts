import {
  CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely,
} from 'kysely';
import type { WriterThread } from './writer-thread.js';

/** Kysely's SQLite driver, with the connection in the writer thread. */
class WriterThreadDriver implements Driver {
  private release: (() => void) | undefined;
  private readonly connection: DatabaseConnection;

  constructor(private readonly thread: WriterThread) {
    this.connection = {
      executeQuery: (compiled) => thread.execute(compiled),
      // eslint-disable-next-line require-yield -- no statement of the write path streams; refused rather than buffered
      async *streamQuery() {
        throw new Error('the SQLite writer does not stream results; read through the reader connection');
      },
    };
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.release = await this.thread.acquire();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    // The store closes the thread (./open.ts hands it over): it runs whether or not Kysely ever used it.
  }
}

/** A Kysely dialect for SQLite whose one connection is the writer thread's. */
export function writerThreadDialect(thread: WriterThread): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new WriterThreadDriver(thread),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
