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
