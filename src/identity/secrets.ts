import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number }) => Promise<Buffer>;

/**
 * A random 256-bit client secret, URL-safe. It never starts with '-': `opencity token <client> <secret>`
 * and other command lines would read such a secret as an option.
 */
export function newSecret(draw: (size: number) => Buffer = randomBytes): string {
  for (;;) {
    const secret = draw(32).toString('base64url');
    if (!secret.startsWith('-')) return secret;
  }
}

/** Random secrets need no slow KDF: a SHA-256 digest is as strong and keeps grants fast. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, digest: string | null): boolean {
  const expected = Buffer.from(digest ?? '0'.repeat(64), 'hex');
  const actual = Buffer.from(secretDigest(secret), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual) && digest !== null;
}

const SCRYPT = { N: 16384, r: 8, p: 1 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A fixed hash to compare against when the user does not exist, so timing reveals nothing. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = (stored ?? DUMMY_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(expected, actual) && stored !== null;
}
