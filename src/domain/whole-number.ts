/**
 * The platform's one rule for a whole number a caller writes (query parameters of
 * discovery, the datasource and the permissions user list; docs/decisions.md).
 * Callers keep their own ranges and messages; what counts as a whole number is decided here.
 */

/**
 * Decimal digits, with a leading `-` for a negative number (so that callers can say
 * "negative" rather than "not a number"). Nothing else: no `+` (an unencoded one arrives
 * as a space anyway), no spaces, fraction, exponent or `0x`, and no `-0`.
 */
const WHOLE = /^-?[0-9]+$/;

/**
 * The whole number `value` writes, or undefined when it writes none. A JSON number counts
 * when it is an integer. Digits past 2^53 read as the nearest double (Infinity past
 * ~1e308): beyond every range the platform accepts, so a range check still refuses them.
 */
export function readWholeNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string' || !WHOLE.test(value)) return undefined;
  const n = Number(value);
  // `-0` (or `-000`) is not how anyone writes zero: refused rather than guessed at.
  return n === 0 && value.startsWith('-') ? undefined : n;
}

/** `value` as a whole number within [min, max], or undefined when it is not one. */
export function wholeNumberWithin(value: unknown, min: number, max: number): number | undefined {
  const n = readWholeNumber(value);
  return n !== undefined && n >= min && n <= max ? n : undefined;
}
