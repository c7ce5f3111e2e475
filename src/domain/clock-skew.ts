import { badRequest } from './errors.js';
import { formatInstant } from './time-instant.js';

/**
 * A site's clock may run a little ahead of the platform's; a TimeInstant
 * further ahead than CLOCK_SKEW is a wrong clock, and would hold the asset's
 * current state in the future, where no later update could move it.
 */
export function assertObservedNotInFuture(recordedAt: number, now: number, clockSkewMs: number): void {
  if (recordedAt > now + clockSkewMs) {
    throw badRequest(`Asset attribute TimeInstant is in the future: ${formatInstant(recordedAt)} is more than the allowed clock skew `
      + `(${clockSkewMs / 1000} s) ahead of the platform's time ${formatInstant(now)}`);
  }
}
