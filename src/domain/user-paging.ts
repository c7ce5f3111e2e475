/** Paging of the permissions interface's user list (spec part B, "Limits"). */
import { unprocessable } from './errors.js';
import { readWholeNumber as wholeNumber } from './whole-number.js';

export const USER_PAGE_DEFAULT = 50;
export const USER_PAGE_MAX = 50;

/**
 * Offsets beyond this simply land past the end of the list (an empty page); capping
 * them keeps absurd values out of the SQL, where they would overflow.
 */
const OFFSET_CAP = 2_147_483_647;

export interface UserPage {
  offset: number;
  count: number;
}

/** Reads `offset` (>= 0, default 0) and `count` (1..50, default 50); a bad value is 422. */
export function userPage(offset: unknown, count: unknown): UserPage {
  const o = offset === undefined ? 0 : wholeNumber(offset);
  if (o === undefined) throw unprocessable('The given offset is not an integer.');
  if (o < 0) throw unprocessable('The given offset is negative.');
  const c = count === undefined ? USER_PAGE_DEFAULT : wholeNumber(count);
  if (c === undefined) throw unprocessable('The given count is not an integer.');
  if (c < 1) throw unprocessable('The given count is too small: at least 1.');
  if (c > USER_PAGE_MAX) throw unprocessable('The given count is too large.');
  return { offset: Math.min(o, OFFSET_CAP), count: c };
}
