import { Migrator, sql } from 'kysely';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { Store } from '../../src/storage/store.js';

/** The store at `url` migrated up to `step` (included), as a release of that schema left it. */
export async function storeMigratedTo(url: string, step: string): Promise<Store> {
  const store = Store.open(url);
  const migrated = await new Migrator({ db: store.db, provider: migrationProvider(store.dialect.migrationStep) }).migrateTo(step);
  if (migrated.error) throw migrated.error;
  return store;
}

/** Asset 1 (`urn:oc:entity:santander:env:old`) with the attributes `names`, written as an earlier schema has it, for readings to be added under. */
export async function addEarlierAsset(store: Store, names: readonly string[]): Promise<void> {
  await sql`insert into assets (seq, id, type, site, name, attrs, latitude, longitude, recorded_at, last_reading_at, created_at)
    values (1, 'urn:oc:entity:santander:env:old', 'urn:oc:entityType:iotdevice', 'santander', 'old', '{}', 43.46, -3.81, 0, 0, 0)`.execute(store.db);
  for (const name of names) await sql`insert into asset_attributes (asset_seq, name, type) values (1, ${name}, 'x')`.execute(store.db);
}
