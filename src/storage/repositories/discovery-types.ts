import type { Store } from '../store.js';

/** The asset-type dictionary: seeded from the reference data, grown by federation with every new type. */
export interface AssetTypeRecord {
  type: string;
  description: string;
}

export async function listAssetTypes(store: Store): Promise<AssetTypeRecord[]> {
  const rows = await store.read.selectFrom('asset_types').select(['id', 'description']).orderBy('id').execute();
  return rows.map((r) => ({ type: r.id, description: r.description }));
}

export async function findAssetType(store: Store, type: string): Promise<AssetTypeRecord | undefined> {
  const row = await store.read.selectFrom('asset_types').select(['id', 'description']).where('id', '=', type).executeTakeFirst();
  return row && { type: row.id, description: row.description };
}
