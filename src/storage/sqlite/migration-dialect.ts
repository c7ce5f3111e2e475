import { CompiledQuery, SqliteAdapter, SqliteDialect, type DatabaseConnection, type DialectAdapter, type Driver, type SqliteDialectConfig } from 'kysely';

/**
 * SQLite has transactional DDL, though Kysely's SQLite adapter says otherwise
 * and so would run migrations outside any transaction: a process killed
 * half-way through one would leave tables made and the migration unrecorded,
 * and every later start would fail on them. Saying so makes the migrator run
 * each migration and its record in one transaction, whatever the migration.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * The dialect migrations run on. Its transactions take the write lock at once,
 * so that a second process migrating the same file waits for the first
 * (busy_timeout) instead of failing on a lock it cannot upgrade to.
 */
export class SqliteMigrationDialect extends SqliteDialect {
  constructor(config: SqliteDialectConfig) {
    super(config);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}
