import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares
 * before every query: on the write path that compiling cost as much as running
 * the statements. This keeps the compiled statements of one connection by SQL
 * text (bounded; SQLite re-prepares them itself after a schema change).
 * Safe because Kysely runs one query at a time per connection.
 */
export function withStatementCache(conn: SQLite.Database, limit = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => conn.close(),
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= limit) statements.clear();
        statement = withRowShape(conn.prepare(sql));
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

/**
 * A statement that returns rows builds them from arrays, with a constructor
 * made once for its columns. better-sqlite3 builds each row object one
 * property at a time, which was much of what reading a page of assets
 * cost; a literal of fixed shape is built at once, and reads faster after.
 */
export function withRowShape(statement: SQLite.Statement): SqliteStatement {
  if (!statement.reader) return statement as unknown as SqliteStatement;
  statement.raw(true);
  let row = rowConstructor(statement);
  const shape = (values: unknown[]): unknown => {
    // SQLite recompiles a statement after a schema change, which may change its columns (select *).
    if (values.length !== row.columns) row = rowConstructor(statement);
    return row(values);
  };
  return {
    reader: true,
    all: (parameters) => (statement.all(...parameters) as unknown[][]).map(shape),
    run: (parameters) => statement.run(...parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(...parameters) as IterableIterator<unknown[]>) yield shape(values);
    },
  };
}

type RowConstructor = ((values: unknown[]) => unknown) & { columns: number };

function rowConstructor(statement: SQLite.Statement): RowConstructor {
  const names = statement.columns().map((c) => c.name);
  // Keys are the statement's column names, quoted by JSON.stringify; computed keys keep a column named __proto__ an own property.
  const key = (n: string) => (n === '__proto__' ? `[${JSON.stringify(n)}]` : JSON.stringify(n));
  const make = new Function('r', `return {${names.map((n, i) => `${key(n)}: r[${i}]`).join(', ')}};`) as RowConstructor;
  make.columns = names.length;
  return make;
}
