import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import type { StoreMigration } from './index.js';

/** What the initial schema differs in between the stores. */
interface InitialShape {
  /** Column type of epoch milliseconds and counters. */
  bigint: 'bigint' | 'integer';
  /** The assets table's seq and id columns, and which is the key. */
  assetKeys(table: CreateTableBuilder<'assets'>): CreateTableBuilder<'assets', 'seq' | 'id'>;
  /** The readings table's seq column. */
  readingKey(table: CreateTableBuilder<'readings'>): CreateTableBuilder<'readings', 'seq'>;
  /** The geo index of assets. */
  spatialIndex(db: Kysely<any>): Promise<void>;
}

/** The whole initial schema: sites and dictionaries, assets and readings, identity. */
export const initial: StoreMigration = {
  name: '0001-initial',
  // The integer seq is the rowid (what the R*Tree refers to).
  sqlite: (db) => createInitialSchema(db, {
    bigint: 'integer',
    assetKeys: (t) => t.addColumn('seq', 'integer', (c) => c.primaryKey()).addColumn('id', 'text', (c) => c.notNull().unique()),
    readingKey: (t) => t.addColumn('seq', 'integer', (c) => c.primaryKey()),
    spatialIndex: async (d) => {
      await sql`create virtual table assets_rtree using rtree(id, min_lon, max_lon, min_lat, max_lat)`.execute(d);
    },
  }),
  // The asset id is the key, so the table can be distributed by it.
  postgres: (db) => createInitialSchema(db, {
    bigint: 'bigint',
    assetKeys: (t) => t.addColumn('seq', 'bigint', (c) => c.generatedByDefaultAsIdentity().notNull().unique()).addColumn('id', 'text', (c) => c.primaryKey()),
    readingKey: (t) => t.addColumn('seq', 'bigint', (c) => c.generatedByDefaultAsIdentity().primaryKey()),
    spatialIndex: async (d) => {
      await sql`create extension if not exists postgis`.execute(d);
      await sql`alter table assets add column geog geography(Point, 4326)`.execute(d);
      await sql`create index assets_geog on assets using gist (geog)`.execute(d);
    },
  }),
};

async function createInitialSchema(db: Kysely<any>, shape: InitialShape): Promise<void> {
  const { bigint } = shape;

  await db.schema.createTable('sites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('city'))
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('country_code', 'text')
    .addColumn('country', 'text')
    .addColumn('city', 'text')
    .addColumn('quota', bigint)
    .addColumn('created_at', bigint, (c) => c.notNull())
    .execute();

  await db.schema.createTable('asset_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .execute();

  await db.schema.createTable('attribute_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('units', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();

  await shape.assetKeys(db.schema.createTable('assets'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('site', 'text', (c) => c.notNull())
    .addColumn('service', 'text')
    .addColumn('provider', 'text')
    .addColumn('grp', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('experimenter', 'text')
    .addColumn('experiment', 'text')
    .addColumn('attrs', 'text', (c) => c.notNull())
    .addColumn('latitude', 'double precision', (c) => c.notNull())
    .addColumn('longitude', 'double precision', (c) => c.notNull())
    .addColumn('recorded_at', bigint, (c) => c.notNull())
    .addColumn('last_reading_at', bigint, (c) => c.notNull())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('deleted_at', bigint)
    .execute();
  await db.schema.createIndex('assets_site_service_provider').on('assets').columns(['site', 'service', 'provider']).execute();
  await db.schema.createIndex('assets_type').on('assets').column('type').execute();
  await db.schema.createIndex('assets_last_reading').on('assets').columns(['last_reading_at', 'seq']).execute();
  await db.schema.createIndex('assets_experiment').on('assets').columns(['experimenter', 'experiment']).execute();
  await shape.spatialIndex(db);

  await db.schema.createTable('asset_attributes')
    .addColumn('asset_seq', bigint, (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('asset_attributes_pk', ['asset_seq', 'name'])
    .execute();

  await shape.readingKey(db.schema.createTable('readings'))
    .addColumn('asset_seq', bigint, (c) => c.notNull())
    .addColumn('attr_name', 'text', (c) => c.notNull())
    .addColumn('recv_time', bigint, (c) => c.notNull())
    .addColumn('attr_type', 'text', (c) => c.notNull())
    .addColumn('attr_value', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('readings_asset_attr_time').on('readings').columns(['asset_seq', 'attr_name', 'recv_time']).execute();
  await db.schema.createIndex('readings_asset_time').on('readings').columns(['asset_seq', 'recv_time']).execute();

  await db.schema.createTable('asset_counts')
    .addColumn('site', 'text', (c) => c.notNull())
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('assets', bigint, (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('asset_counts_pk', ['site', 'service', 'provider', 'type'])
    .execute();

  await db.schema.createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text')
    .addColumn('password_hash', 'text')
    .addColumn('service_account_of', 'text')
    .addColumn('created_at', bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('users_email').on('users').column('email').execute();

  await db.schema.createTable('clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('uri', 'text')
    .addColumn('secret_digest', 'text')
    .addColumn('service_account_user_id', 'text', (c) => c.notNull())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .execute();

  await db.schema.createTable('client_redirect_uris')
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('uri', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('client_redirect_uris_pk', ['client_id', 'position'])
    .execute();

  await db.schema.createTable('role_assignments')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('experiment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('role_assignments_pk', ['user_id', 'role', 'experiment'])
    .execute();

  await db.schema.createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', bigint, (c) => c.notNull())
    .addColumn('retired_at', bigint)
    .execute();

  await db.schema.createTable('refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('session_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('revoked_at', bigint)
    .addColumn('created_at', bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('refresh_tokens_session').on('refresh_tokens').column('session_id').execute();

  await db.schema.createTable('authorization_codes')
    .addColumn('code_digest', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('nonce', 'text')
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .addColumn('used_at', bigint)
    .execute();
}
