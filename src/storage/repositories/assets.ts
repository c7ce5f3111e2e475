import type { Store } from '../store.js';

/** The federation's own read of an asset; its writes go through the write pipeline (../write-pipeline.ts). */

export interface StoredAsset {
  id: string;
  type: string;
  /** JSON text of the NGSI v2 normalized attributes. */
  attrs: string;
}

/** A live asset as its site last pushed it. */
export async function findLiveAsset(store: Store, id: string): Promise<StoredAsset | undefined> {
  return store.read.selectFrom('assets').select(['id', 'type', 'attrs'])
    .where('id', '=', id).where('deleted_at', 'is', null)
    .executeTakeFirst();
}

/** Live assets by id (those of `ids` that are live), one statement per thousand ids. */
export async function findLiveAssets(store: Store, ids: readonly string[]): Promise<Map<string, StoredAsset>> {
  const found = new Map<string, StoredAsset>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 1000) {
    const rows = await store.read.selectFrom('assets').select(['id', 'type', 'attrs'])
      .where('id', 'in', unique.slice(i, i + 1000)).where('deleted_at', 'is', null).execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}
