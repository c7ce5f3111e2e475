/**
 * How delivery answers a failure: it tries again, the wait doubling from one
 * second to ten minutes, while the subscription's later changes wait behind
 * (so a receiver sees each asset's changes in order). Only a 2xx answer is a
 * delivery. Past `maxFailsLimit` consecutive failures the subscription turns
 * inactive, as Orion does.
 */
export const FIRST_RETRY_MS = 1000;
export const LAST_RETRY_MS = 10 * 60_000;

/** The wait before the next try after `failures` consecutive failures (1 or more). */
export function retryDelayMs(failures: number): number {
  return Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(20, Math.max(0, failures - 1)));
}

/** Does an answer with this status count as delivered? */
export function isDelivered(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Does this run of consecutive failures make the subscription inactive? */
export function exceedsFailsLimit(failsCounter: number, maxFailsLimit: number | undefined): boolean {
  return maxFailsLimit !== undefined && failsCounter > maxFailsLimit;
}
