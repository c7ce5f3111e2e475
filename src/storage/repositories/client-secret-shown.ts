import type { Store } from '../store.js';

/**
 * Whether a secret the platform generated for a client has been shown to
 * anyone (../migrations/1000-client-secret-unshown.ts): a start that creates
 * the bootstrap client prints its secret after the commit, and records here
 * that it did.
 */

/** The client exists and its generated secret was never shown. */
export async function secretNeverShown(store: Store, clientId: string): Promise<boolean> {
  const row = await store.read.selectFrom('clients').select('secret_unshown').where('id', '=', clientId).executeTakeFirst();
  return Number(row?.secret_unshown ?? 0) === 1;
}

export async function recordSecretShown(store: Store, clientId: string): Promise<void> {
  await store.writes.run((trx) => trx.updateTable('clients').set({ secret_unshown: 0 }).where('id', '=', clientId).execute());
}
