import { KNOWN_ADDRESS_MS, KNOWN_ADDRESSES_PER_PRINCIPAL } from '../../domain/sign-in-addresses.js';
import type { Store } from '../store.js';

/**
 * The addresses each client or user signed in from (../../domain/sign-in-addresses.ts): the
 * most recent few per principal, each with the time of its last success. Plain statements that
 * run unchanged on both stores.
 */

/** The principal's addresses still known at `now`, with the last success at each. */
export async function readSignInAddresses(store: Store, principal: string, now: number): Promise<Map<string, number>> {
  const rows = await store.read.selectFrom('sign_in_addresses').select(['address', 'last_success_at'])
    .where('principal', '=', principal).where('last_success_at', '>', now - KNOWN_ADDRESS_MS)
    .orderBy('last_success_at', 'desc').orderBy('address').limit(KNOWN_ADDRESSES_PER_PRINCIPAL).execute();
  return new Map(rows.map((r) => [r.address, Number(r.last_success_at)]));
}

/** Records a success from `address` at `now`, and forgets what the principal no longer keeps. */
export async function recordSignInAddress(store: Store, principal: string, address: string, now: number): Promise<void> {
  await store.writes.run(async (trx) => {
    await trx.insertInto('sign_in_addresses').values({ principal, address, last_success_at: now })
      .onConflict((oc) => oc.columns(['principal', 'address']).doUpdateSet({ last_success_at: now })).execute();
    const kept = trx.selectFrom('sign_in_addresses').select('address').where('principal', '=', principal)
      .orderBy('last_success_at', 'desc').orderBy('address').limit(KNOWN_ADDRESSES_PER_PRINCIPAL);
    await trx.deleteFrom('sign_in_addresses').where('principal', '=', principal)
      .where((eb) => eb.or([eb('last_success_at', '<=', now - KNOWN_ADDRESS_MS), eb('address', 'not in', kept)])).execute();
  });
}
