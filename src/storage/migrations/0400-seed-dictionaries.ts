import type { Kysely } from 'kysely';
import seed from '../seed/dictionaries.json' with { type: 'json' };
import type { StoreMigration } from './index.js';

/**
 * The asset-type and attribute-type dictionaries the original platform shipped
 * (src/storage/seed/dictionaries.json, from the reference data). Entries that
 * already exist are left as they are, so descriptions edited since survive.
 */
export const seedDictionaries: StoreMigration = {
  name: '0400-seed-dictionaries',
  sqlite: (db) => seedTypes(db),
  postgres: (db) => seedTypes(db),
};

async function seedTypes(db: Kysely<any>): Promise<void> {
  await db.insertInto('asset_types')
    .values(seed.assetTypes.map((t) => ({ id: t.type, description: t.description })))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  await db.insertInto('attribute_types')
    .values(seed.attributeTypes.map((t) => ({ id: t.type, description: t.description, units: JSON.stringify(t.units) })))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}
