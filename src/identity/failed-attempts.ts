import type { Clock } from '../domain/clock.js';
import { afterFailure, isForgotten, waitLeft, type BackoffPolicy, type FailureRecord } from '../domain/backoff.js';
import { AppError } from '../domain/errors.js';
import { isKnownAddress, keptAddresses, needsRecording, REREAD_AFTER_MS } from '../domain/sign-in-addresses.js';
import { readSignInAddresses, recordSignInAddress } from '../storage/repositories/sign-in-addresses.js';
import type { Store } from '../storage/store.js';

/**
 * Per client and per user (a principal), and per principal and address: docs/identity.md,
 * "Failed sign-ins". The address's own back-off starts early and stays short; the principal's,
 * which attempts from any address raise, starts later and waits longer, and after each wait
 * holds no one for a while (up to a minute), so that a sustained attack cannot keep a
 * legitimate site out even from a new address.
 */
export const ADDRESS_BACKOFF: BackoffPolicy = { freeFailures: 5, firstWaitMs: 1000, maxWaitMs: 60_000, forgetAfterMs: 3_600_000, maxOpenMs: 0 };
export const PRINCIPAL_BACKOFF: BackoffPolicy = { freeFailures: 20, firstWaitMs: 1000, maxWaitMs: 300_000, forgetAfterMs: 3_600_000, maxOpenMs: 60_000 };
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

/** What this process knows of a principal's stored sign-in addresses. */
interface KnownAddresses {
  /** Address → last success, as stored (or as this process wrote it). */
  addresses: Map<string, number>;
  /** When they were last read from the store (-Infinity: never). */
  readAt: number;
}

/**
 * The failed sign-ins of this process, and the addresses each principal signed in from. A
 * principal is `client:<id>` or `user:<id>` (src/domain/sign-in-addresses.ts), so that every
 * spelling of one client or user (percent-encoded, user name or e-mail address) shares its
 * back-off. An address a principal has signed in from is not held by the principal's back-off,
 * only by its own: an attacker elsewhere cannot lock a working site or person out. Those
 * addresses are in the store, written when new or an hour old, and read only while the
 * principal is held (at most once a minute per principal), so they hold after a restart and in
 * every server process; the failure counts are this process's own.
 */
export class FailedAttempts {
  private readonly byPrincipal = new BoundedMap<FailureRecord>();
  private readonly byAddress = new BoundedMap<FailureRecord>();
  private readonly known = new BoundedMap<KnownAddresses>();
  /** Reads of a principal's addresses under way, so that concurrent attempts share one. */
  private readonly reading = new Map<string, Promise<KnownAddresses>>();

  constructor(private readonly clock: Clock, private readonly store: Store) {}

  /** Throws 429 (with Retry-After) while the principal must wait at this address. */
  async check(principal: string, address: string): Promise<void> {
    const now = this.clock.now();
    const own = waitLeft(this.byAddress.get(`${principal}|${address}`), now);
    let shared = waitLeft(this.byPrincipal.get(principal), now);
    if (shared > 0 && (await this.isKnown(principal, address, now))) shared = 0;
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

  /**
   * A success forgets the failures of this principal at this address, and makes the address
   * known: written to the store when it is new to this process or its stored success is an hour
   * old. Should that write fail, the sign-in stands and the next success writes it.
   */
  async succeeded(principal: string, address: string): Promise<void> {
    const now = this.clock.now();
    this.byAddress.delete(`${principal}|${address}`);
    const shared = this.byPrincipal.get(principal);
    if (shared && isForgotten(PRINCIPAL_BACKOFF, shared, now)) this.byPrincipal.delete(principal);
    const entry = this.known.get(principal);
    if (!needsRecording(entry?.addresses.get(address), now)) return;
    try {
      await recordSignInAddress(this.store, principal, address, now);
    } catch {
      return;
    }
    const latest = this.known.get(principal) ?? { addresses: new Map(), readAt: -Infinity };
    this.known.set(principal, { addresses: keptAddresses(new Map([...latest.addresses, [address, now]]), now), readAt: latest.readAt });
  }

  /** Has the principal signed in from this address (as this process knows it, or the store does)? */
  private async isKnown(principal: string, address: string, now: number): Promise<boolean> {
    let entry = this.known.get(principal);
    if (isKnownAddress(entry?.addresses.get(address), now)) return true;
    if (entry && now - entry.readAt < REREAD_AFTER_MS) return false;
    entry = await this.read(principal, now);
    return isKnownAddress(entry.addresses.get(address), now);
  }

  private read(principal: string, now: number): Promise<KnownAddresses> {
    let pending = this.reading.get(principal);
    if (!pending) {
      pending = (async () => {
        try {
          const stored = await readSignInAddresses(this.store, principal, now);
          // What this process wrote meanwhile stays, whichever is newer.
          const mine = this.known.get(principal)?.addresses ?? new Map<string, number>();
          const merged = new Map(stored);
          for (const [a, at] of mine) merged.set(a, Math.max(at, merged.get(a) ?? at));
          const entry = { addresses: keptAddresses(merged, now), readAt: now };
          this.known.set(principal, entry);
          return entry;
        } finally {
          this.reading.delete(principal);
        }
      })();
      this.reading.set(principal, pending);
    }
    return pending;
  }
}
