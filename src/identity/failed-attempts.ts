import type { Clock } from '../domain/clock.js';
import { afterFailure, isForgotten, waitLeft, type BackoffPolicy, type FailureRecord } from '../domain/backoff.js';
import { AppError } from '../domain/errors.js';

/**
 * Per client and per user (a principal), and per principal and address: docs/identity.md,
 * "Failed sign-ins". The address's own back-off starts early and stays short; the principal's,
 * which attempts from any address raise, starts later and waits longer, and after each wait
 * holds no one for a while (up to a minute), so that a sustained attack cannot keep a
 * legitimate site out even from a new address.
 */
export const ADDRESS_BACKOFF: BackoffPolicy = { freeFailures: 5, firstWaitMs: 1000, maxWaitMs: 60_000, forgetAfterMs: 3_600_000, maxOpenMs: 0 };
export const PRINCIPAL_BACKOFF: BackoffPolicy = { freeFailures: 20, firstWaitMs: 1000, maxWaitMs: 300_000, forgetAfterMs: 3_600_000, maxOpenMs: 60_000 };
/** An address a principal signed in from stays exempt from the principal's back-off this long. */
export const KNOWN_ADDRESS_MS = 7 * 86_400_000;
/** Entries kept at most per table (the oldest go first): memory stays bounded under any attack. */
const MAX_ENTRIES = 100_000;

/** Where an attempt comes from and what remembers the failures (the token endpoint, the login form). */
export interface AttemptSource {
  attempts: FailedAttempts;
  address: string;
}

class BoundedMap<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    this.delete(key);
    if (this.size >= MAX_ENTRIES) this.delete(this.keys().next().value as string);
    return super.set(key, value);
  }
}

/**
 * The failed sign-ins of this process. A principal is `client:<id>` or `user:<id>`, so that every
 * spelling of one client or user (percent-encoded, user name or e-mail address) shares its
 * back-off. An address a principal has signed in from before is not held by the principal's
 * back-off, only by its own: an attacker elsewhere cannot lock a working site or person out.
 */
export class FailedAttempts {
  private readonly byPrincipal = new BoundedMap<FailureRecord>();
  private readonly byAddress = new BoundedMap<FailureRecord>();
  private readonly knownAddresses = new BoundedMap<number>();

  constructor(private readonly clock: Clock) {}

  /** Throws 429 (with Retry-After) while the principal must wait at this address. */
  check(principal: string, address: string): void {
    const now = this.clock.now();
    const own = waitLeft(this.byAddress.get(`${principal}|${address}`), now);
    const shared = this.isKnown(principal, address, now) ? 0 : waitLeft(this.byPrincipal.get(principal), now);
    const wait = Math.max(own, shared);
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new AppError('TOO_MANY_REQUESTS', `Too many failed sign-ins; retry in ${seconds} seconds`, { retryAfterSeconds: seconds });
    }
  }

  failed(principal: string, address: string): void {
    const now = this.clock.now();
    const key = `${principal}|${address}`;
    this.byAddress.set(key, afterFailure(ADDRESS_BACKOFF, this.byAddress.get(key), now));
    this.byPrincipal.set(principal, afterFailure(PRINCIPAL_BACKOFF, this.byPrincipal.get(principal), now));
  }

  /** A success forgets the failures of this principal at this address, and makes the address known. */
  succeeded(principal: string, address: string): void {
    this.byAddress.delete(`${principal}|${address}`);
    this.knownAddresses.set(`${principal}|${address}`, this.clock.now());
    const shared = this.byPrincipal.get(principal);
    if (shared && isForgotten(PRINCIPAL_BACKOFF, shared, this.clock.now())) this.byPrincipal.delete(principal);
  }

  private isKnown(principal: string, address: string, now: number): boolean {
    const since = this.knownAddresses.get(`${principal}|${address}`);
    return since !== undefined && now - since < KNOWN_ADDRESS_MS;
  }
}
