/**
 * Back-off after failed sign-ins (client secrets, user passwords), after Keycloak's brute-force
 * detection: a few failures are free, then each further failure makes the next attempt wait,
 * twice as long each time up to a cap; attempts during a wait are refused unchecked and not
 * counted, so hammering cannot stretch a wait beyond the cap; failures are forgotten a while
 * after the last one, and a success forgets them at once.
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
}

export interface FailureRecord {
  failures: number;
  lastFailureAt: number;
  /** No attempt is checked before this time. */
  blockedUntil: number;
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
  const failures = (record && !isForgotten(policy, record, now) ? record.failures : 0) + 1;
  return { failures, lastFailureAt: now, blockedUntil: now + waitAfter(policy, failures) };
}

/** How long an attempt must still wait at `now` (0: it may be checked). */
export const waitLeft = (record: FailureRecord | undefined, now: number): number => (record ? Math.max(0, record.blockedUntil - now) : 0);
