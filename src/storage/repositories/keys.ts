import type { Store } from '../store.js';

export interface SigningKeyRecord {
  kid: string;
  alg: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: number;
  retiredAt: number | null;
}

export async function listSigningKeys(store: Store): Promise<SigningKeyRecord[]> {
  const rows = await store.read.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').execute();
  return rows.map((r) => ({ kid: r.kid, alg: r.alg, privateJwk: r.private_jwk, publicJwk: r.public_jwk, createdAt: r.created_at, retiredAt: r.retired_at }));
}

/** Adds a key and retires the previous current one (it still verifies until its tokens expire). */
export async function addSigningKey(store: Store, key: Omit<SigningKeyRecord, 'retiredAt'>): Promise<void> {
  await store.writes.run(async (trx) => {
    await trx.updateTable('signing_keys').set({ retired_at: key.createdAt }).where('retired_at', 'is', null).execute();
    await trx.insertInto('signing_keys').values({
      kid: key.kid, alg: key.alg, private_jwk: key.privateJwk, public_jwk: key.publicJwk, created_at: key.createdAt, retired_at: null,
    }).execute();
  });
}

/** Drops keys retired long enough ago that no token they signed can still be valid. */
export async function pruneSigningKeys(store: Store, retiredBefore: number): Promise<void> {
  await store.writes.run((trx) => trx.deleteFrom('signing_keys').where('retired_at', '<', retiredBefore).execute());
}

/** Stores a key's private part again (sealed under a new secret); its other columns stay. */
export async function replacePrivateKeys(store: Store, keys: ReadonlyArray<{ kid: string; privateJwk: string }>): Promise<void> {
  if (keys.length === 0) return;
  await store.writes.run(async (trx) => {
    for (const key of keys) await trx.updateTable('signing_keys').set({ private_jwk: key.privateJwk }).where('kid', '=', key.kid).execute();
  });
}
