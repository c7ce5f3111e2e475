import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../domain/clock.js';
import { addSigningKey, listSigningKeys, pruneSigningKeys, type SigningKeyRecord } from '../storage/repositories/keys.js';
import type { Store } from '../storage/store.js';

export const SIGNING_ALG = 'ES256';

type KeyObject = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKey {
  record: SigningKeyRecord;
  publicKey: KeyObject;
  privateKey: KeyObject;
}

/**
 * The signing keys, kept in the store so that restarts and several server
 * processes sign and verify with the same keys. The newest key signs; retired
 * ones still verify until every token they signed has expired.
 */
export class KeyRing {
  private keys = new Map<string, LoadedKey>();
  private currentKid: string | undefined;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly maxTokenLifetimeMs: number) {}

  async load(): Promise<void> {
    let records = await listSigningKeys(this.store);
    if (records.length === 0) {
      await this.generate().catch(() => undefined); // another process may have made one first
      records = await listSigningKeys(this.store);
    }
    const next = new Map<string, LoadedKey>();
    for (const record of records) {
      const existing = this.keys.get(record.kid);
      next.set(record.kid, existing ? { ...existing, record } : {
        record,
        publicKey: await importJWK(JSON.parse(record.publicJwk) as JWK, record.alg),
        privateKey: await importJWK(JSON.parse(record.privateJwk) as JWK, record.alg),
      });
    }
    this.keys = next;
    this.currentKid = records.find((r) => r.retiredAt === null)?.kid ?? records[0]?.kid;
  }

  /** Makes a new signing key; the previous one keeps verifying. */
  async rotate(): Promise<string> {
    const kid = await this.generate();
    await pruneSigningKeys(this.store, this.clock.now() - this.maxTokenLifetimeMs);
    await this.load();
    return kid;
  }

  private async generate(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = randomUUID();
    const pub = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
    const priv = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
    await addSigningKey(this.store, { kid, alg: SIGNING_ALG, publicJwk: JSON.stringify(pub), privateJwk: JSON.stringify(priv), createdAt: this.clock.now() });
    return kid;
  }

  current(): { kid: string; alg: string; privateKey: KeyObject } {
    const key = this.currentKid ? this.keys.get(this.currentKid) : undefined;
    if (!key) throw new Error('no signing key loaded');
    return { kid: key.record.kid, alg: key.record.alg, privateKey: key.privateKey };
  }

  /** The public key of `kid`; reloads once from the store when another process rotated. */
  async publicKey(kid: string): Promise<KeyObject | undefined> {
    if (!this.keys.has(kid)) await this.load();
    return this.keys.get(kid)?.publicKey;
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.keys.values()].map((k) => JSON.parse(k.record.publicJwk) as JWK) };
  }
}
