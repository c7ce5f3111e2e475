import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares
 * before every query: on the write path that compiling cost as much as running
 * the statements. This keeps the compiled statements of one connection by SQL
 * text (bounded; SQLite re-prepares them itself after a schema change).
 * Safe because Kysely runs one query at a time per connection.
 */
export function withStatementCache(conn: SQLite.Database, onClose?: () => void, limit = 1000): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      onClose?.();
      conn.close();
    },
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= limit) statements.clear();
        statement = conn.prepare(sql);
        statements.set(sql, statement);
      }
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
