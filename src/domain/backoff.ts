/**
 * Back-off after failed sign-ins (client secrets, user passwords), after Keycloak's brute-force
 * detection: a few failures are free, then each further failure makes the next attempt wait,
 * twice as long each time up to a cap; attempts during a wait are refused unchecked and not
 * counted, so hammering cannot stretch a wait beyond the cap; failures are forgotten a while
 * after the last one, and a success forgets them at once.
 *
 * A policy may also keep its waits from following one another back to back: after each wait
 * the count holds no one for as long as the wait lasted (up to `maxOpenMs`), and failures in
 * that time only raise the count, so that the next failure after it starts a longer wait. An
 * attacker who fails again the moment each wait ends then cannot hold everyone else for good.
 */

export interface BackoffPolicy {
  /** Failures that cost no wait. */
  freeFailures: number;
  /** The wait after the first failure beyond the free ones; it doubles with each further failure. */
  firstWaitMs: number;
  /** No wait is longer. */
  maxWaitMs: number;
  /** Failures are forgotten this long after the last one. */
  forgetAfterMs: number;
  /** After a wait, nobody is held for as long as it lasted, but at most this long (0: waits may follow back to back). */
  maxOpenMs: number;
}

export interface FailureRecord {
  failures: number;
  lastFailureAt: number;
  /** No attempt is checked before this time. */
  blockedUntil: number;
  /** From `blockedUntil` to this time, failures are counted but start no wait. */
  openUntil: number;
}

/** The wait that follows the `failures`-th failure. */
export function waitAfter(policy: BackoffPolicy, failures: number): number {
  const beyond = failures - policy.freeFailures;
  if (beyond <= 0) return 0;
  return Math.min(policy.maxWaitMs, policy.firstWaitMs * 2 ** Math.min(beyond - 1, 40));
}

/** Is the record still worth keeping at `now`? */
export const isForgotten = (policy: BackoffPolicy, record: FailureRecord, now: number): boolean =>
  now - record.lastFailureAt >= policy.forgetAfterMs && now >= record.blockedUntil;

/** The record after one more failure at `now`. */
export function afterFailure(policy: BackoffPolicy, record: FailureRecord | undefined, now: number): FailureRecord {
  const kept = record && !isForgotten(policy, record, now) ? record : undefined;
  const failures = (kept?.failures ?? 0) + 1;
  if (kept && kept.blockedUntil <= now && now < kept.openUntil) return { ...kept, failures, lastFailureAt: now };
  const wait = waitAfter(policy, failures);
  return { failures, lastFailureAt: now, blockedUntil: now + wait, openUntil: now + wait + Math.min(wait, policy.maxOpenMs) };
}

/** How long an attempt must still wait at `now` (0: it may be checked). */
export const waitLeft = (record: FailureRecord | undefined, now: number): number => (record ? Math.max(0, record.blockedUntil - now) : 0);
