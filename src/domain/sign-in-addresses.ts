/**
 * The addresses a client or user (a principal) has signed in from: such an address is not held
 * by the back-off of the principal's failures from all addresses (./backoff.ts), so an attacker
 * elsewhere cannot lock a working site or person out where they work. They are stored, so that
 * this holds after a restart and in every server process; a principal keeps only its most recent
 * few, and an address is forgotten a while after its last success.
 */

/** An address stays known this long after the last success from it. */
export const KNOWN_ADDRESS_MS = 30 * 86_400_000;
/** The most recent addresses kept per principal. */
export const KNOWN_ADDRESSES_PER_PRINCIPAL = 20;
/** A success from a known address is written again only once the stored one is this old. */
export const RECORD_AGAIN_AFTER_MS = 3_600_000;
/** A process reads a principal's stored addresses again at most this often (another process may have added one). */
export const REREAD_AFTER_MS = 60_000;

/** `client:<client id>` or `user:<user id>`: every spelling of a client id, a user's name and e-mail address are one. */
export const clientPrincipal = (clientId: string): string => `client:${clientId}`;
export const userPrincipal = (userId: string): string => `user:${userId}`;

/** Is an address whose last success is `lastSuccessAt` (undefined: none) known at `now`? */
export const isKnownAddress = (lastSuccessAt: number | undefined, now: number): boolean =>
  lastSuccessAt !== undefined && now - lastSuccessAt < KNOWN_ADDRESS_MS;

/** Must a success at `now` be written, the stored one being `recordedAt` (undefined: none)? */
export const needsRecording = (recordedAt: number | undefined, now: number): boolean =>
  recordedAt === undefined || now - recordedAt >= RECORD_AGAIN_AFTER_MS;

/** What a principal keeps of `addresses` (address → last success) at `now`: the most recent ones still known. */
export function keptAddresses(addresses: ReadonlyMap<string, number>, now: number): Map<string, number> {
  const known = [...addresses].filter(([, at]) => isKnownAddress(at, now));
  known.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return new Map(known.slice(0, KNOWN_ADDRESSES_PER_PRINCIPAL));
}
