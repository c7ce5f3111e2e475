import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Signing keys at rest (OPENCITY_KEY_SECRET): the private key of each signing key is stored
 * encrypted with AES-256-GCM under a key derived from the secret (HKDF-SHA256), bound to its
 * `kid`, so that whoever reads the store or a backup of it cannot mint tokens without the secret.
 * Keys stored in clear (before a secret was set) are still read, and sealed again.
 */

const PREFIX = 'sealed:v1:';
const INFO = 'opencity signing keys v1';

export interface KeySecrets {
  /** Seals new keys and opens sealed ones (OPENCITY_KEY_SECRET). */
  current?: string | undefined;
  /** Still opens keys sealed before the secret changed (OPENCITY_KEY_SECRET_PREVIOUS). */
  previous?: string | undefined;
}

/** A stored private key that cannot be opened: the start stops with this message. */
export class SealedKeyError extends Error {
  override name = 'SealedKeyError';
}

const derive = (secret: string): Buffer => Buffer.from(hkdfSync('sha256', secret, 'opencity', INFO, 32));

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export class KeySealer {
  private readonly current: Buffer | undefined;
  private readonly previous: Buffer | undefined;

  constructor(secrets: KeySecrets = {}) {
    this.current = secrets.current === undefined ? undefined : derive(secrets.current);
    this.previous = secrets.previous === undefined ? undefined : derive(secrets.previous);
  }

  /** The text to store for a private key: sealed under the current secret, or clear without one. */
  seal(kid: string, clear: string): string {
    if (!this.current) return clear;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv).setAAD(Buffer.from(kid));
    const body = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
    return `${PREFIX}${[iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.')}`;
  }

  /** The private key a stored text holds, and whether it should be stored again (clear, or sealed under the previous secret). */
  open(kid: string, stored: string): { clear: string; reseal: boolean } {
    if (!isSealed(stored)) return { clear: stored, reseal: this.current !== undefined };
    if (!this.current) {
      throw new SealedKeyError('the signing keys in the store are encrypted: set OPENCITY_KEY_SECRET to the secret they were encrypted with');
    }
    const fromCurrent = openWith(this.current, kid, stored);
    if (fromCurrent !== undefined) return { clear: fromCurrent, reseal: false };
    const fromPrevious = this.previous && openWith(this.previous, kid, stored);
    if (fromPrevious !== undefined) return { clear: fromPrevious, reseal: true };
    throw new SealedKeyError(`OPENCITY_KEY_SECRET does not open signing key ${kid}: give the secret it was encrypted with `
      + '(while changing the secret, the former one goes in OPENCITY_KEY_SECRET_PREVIOUS)');
  }
}

function openWith(key: Buffer, kid: string, stored: string): string | undefined {
  const [iv, tag, body] = stored.slice(PREFIX.length).split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(kid)).setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
