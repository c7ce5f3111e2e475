import type { Store } from '../store.js';

/**
 * Whether anything was committed since the last look: a value that changes
 * with every commit to the store, or undefined when the store cannot tell
 * cheaply (then nothing read may be kept).
 */
export function storeVersion(store: Store): Promise<string | undefined> {
  return store.dialect.commitMarker(store.read, store.db);
}
