import type { Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/** Hourly activity buckets of assets, kept by the federation write path (src/domain/activity.ts). */
export const assetActivity: StoreMigration = {
  name: '0200-asset-activity',
  sqlite: (db) => createActivity(db, 'integer'),
  postgres: (db) => createActivity(db, 'bigint'),
};

async function createActivity(db: Kysely<any>, bigint: 'bigint' | 'integer'): Promise<void> {
    await db.schema.createTable('asset_activity')
      .addColumn('site', 'text', (c) => c.notNull())
      .addColumn('service', 'text', (c) => c.notNull())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('hour', bigint, (c) => c.notNull())
      .addColumn('assets', bigint, (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('asset_activity_pk', ['site', 'service', 'provider', 'type', 'hour'])
      .execute();
    // Online counts sum the recent buckets of every site at once.
    await db.schema.createIndex('asset_activity_hour').on('asset_activity').column('hour').execute();
}
