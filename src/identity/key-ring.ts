import { createPrivateKey, randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import type { Clock } from '../domain/clock.js';
import { addSigningKey, listSigningKeys, pruneSigningKeys, replacePrivateKeys, type SigningKeyRecord } from '../storage/repositories/keys.js';
import type { Store } from '../storage/store.js';
import { KeySealer } from './key-sealing.js';

export const SIGNING_ALG = 'ES256';

/** How often a process looks in the store for keys another process (or `opencity keys rotate`) made. */
const RELOAD_EVERY_MS = 60_000;

type PublicKey = Awaited<ReturnType<typeof importJWK>>;

interface LoadedKey {
  record: SigningKeyRecord;
  /** For jose's verification. */
  publicKey: PublicKey;
  /** For signing with node:crypto (see jws.ts). */
  privateKey: KeyObject;
  publicJwk: JWK;
}

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: KeyObject;
}

/**
 * The signing keys, kept in the store so that restarts and several server
 * processes sign and verify with the same keys. The newest key signs; retired
 * ones still verify until every token they signed has expired, then rotation
 * prunes them.
 */
export class KeyRing {
  private keys = new Map<string, LoadedKey>();
  private currentKid: string | undefined;
  private loading: Promise<void> | undefined;
  private loadedAt = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly maxTokenLifetimeMs: number,
    /** How private keys are kept in the store (OPENCITY_KEY_SECRET): sealed, or clear without a secret. */
    private readonly sealer = new KeySealer(),
  ) {}

  /** Reads the keys from the store (making the first one if there is none). Concurrent calls share one read. */
  load(): Promise<void> {
    this.loading ??= this.loadNow().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async loadNow(): Promise<void> {
    let records = await listSigningKeys(this.store);
    if (records.length === 0) {
      await this.generate().catch(() => undefined); // another process may have made one first
      records = await listSigningKeys(this.store);
    }
    const next = new Map<string, LoadedKey>();
    const reseal: Array<{ kid: string; privateJwk: string }> = [];
    for (const record of records) {
      const existing = this.keys.get(record.kid);
      if (existing) {
        next.set(record.kid, { ...existing, record });
        continue;
      }
      const publicJwk = JSON.parse(record.publicJwk) as JWK;
      const opened = this.sealer.open(record.kid, record.privateJwk);
      if (opened.reseal) reseal.push({ kid: record.kid, privateJwk: this.sealer.seal(record.kid, opened.clear) });
      next.set(record.kid, {
        record,
        publicJwk,
        publicKey: await importJWK(publicJwk, record.alg),
        privateKey: createPrivateKey({ key: JSON.parse(opened.clear) as JsonWebKey, format: 'jwk' }),
      });
    }
    // Keys stored in clear, or under the previous secret, are sealed under the current one.
    await replacePrivateKeys(this.store, reseal);
    this.keys = next;
    this.currentKid = records.find((r) => r.retiredAt === null)?.kid ?? records[0]?.kid;
    this.loadedAt = performance.now();
  }

  /** Makes a new signing key; the previous one keeps verifying until its tokens expire. */
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
    await addSigningKey(this.store, { kid, alg: SIGNING_ALG, publicJwk: JSON.stringify(pub), privateJwk: this.sealer.seal(kid, JSON.stringify(priv)), createdAt: this.clock.now() });
    return kid;
  }

  /**
   * Picks up keys rotated elsewhere now and then, in the background: signing
   * never waits for the store. Until then this process signs with the key it
   * has, which stays valid (rotation keeps retired keys long enough).
   */
  private refreshInBackground(): void {
    if (this.loading === undefined && performance.now() - this.loadedAt > RELOAD_EVERY_MS) void this.load().catch(() => undefined);
  }

  current(): SigningKey {
    this.refreshInBackground();
    const key = this.currentKid ? this.keys.get(this.currentKid) : undefined;
    if (!key) throw new Error('no signing key loaded');
    return { kid: key.record.kid, alg: key.record.alg, privateKey: key.privateKey };
  }

  /** The public key of `kid`; reads the store once more when the key is unknown (another process rotated). */
  async publicKey(kid: string): Promise<{ key: PublicKey; alg: string } | undefined> {
    if (!this.keys.has(kid)) await this.load();
    const found = this.keys.get(kid);
    return found && { key: found.publicKey, alg: found.record.alg };
  }

  /** Reads the store again when the keys in memory are older than `maxAgeMs` (the JWKS must not lag a rotation). */
  async fresh(maxAgeMs: number): Promise<void> {
    if (performance.now() - this.loadedAt > maxAgeMs) await this.load();
  }

  /** The JSON Web Key Set: every key that may still have signed a valid token. */
  jwks(): { keys: JWK[] } {
    this.refreshInBackground();
    return { keys: [...this.keys.values()].map((k) => k.publicJwk) };
  }

  /** For `opencity keys list`. */
  describe(): Array<{ kid: string; alg: string; createdAt: number; retiredAt: number | null; current: boolean }> {
    return [...this.keys.values()].map((k) => ({
      kid: k.record.kid, alg: k.record.alg, createdAt: k.record.createdAt, retiredAt: k.record.retiredAt, current: k.record.kid === this.currentKid,
    }));
  }
}
