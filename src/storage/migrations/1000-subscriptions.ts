import type { Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * NGSI v2 subscriptions and their delivery state (src/services/subscription-delivery.ts):
 * the definition as JSON, the owner and what the owner may see, the durable
 * cursor into the change log, Orion's status fields, and the lease that lets
 * exactly one process deliver a subscription at a time.
 */
export const subscriptions: StoreMigration = {
  name: '1000-subscriptions',
  sqlite: (db) => createSubscriptions(db, 'integer'),
  postgres: (db) => createSubscriptions(db, 'bigint'),
};

async function createSubscriptions(db: Kysely<any>, bigint: 'bigint' | 'integer'): Promise<void> {
  await db.schema.createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('visible', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint)
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('cursor', bigint, (c) => c.notNull())
    .addColumn('times_sent', bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('last_notification', bigint)
    .addColumn('last_success', bigint)
    .addColumn('last_success_code', 'integer')
    .addColumn('last_failure', bigint)
    .addColumn('last_failure_reason', 'text')
    .addColumn('fails_counter', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_holder', 'text')
    .addColumn('lease_until', bigint)
    .execute();
  await db.schema.createIndex('subscriptions_owner').on('subscriptions').columns(['owner', 'created_at']).execute();
}
