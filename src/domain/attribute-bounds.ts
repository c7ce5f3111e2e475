import { badRequest } from './errors.js';

/**
 * Bounds on what one asset may carry, checked on every write path before
 * anything is stored. Nesting: a value nested thousands of levels deep cannot
 * be written as a reading (the JSON text is made recursively), and SQLite's
 * JSON functions stop at 1,000 levels, where one such asset would break
 * metadata search for every asset beside it. Attributes: each costs a reading
 * on every write, and a history read of a very wide asset held the server up.
 */

/** Levels of objects and arrays inside an attribute's value, and inside its metadata (docs/federation.md). */
export const MAX_NESTING = 64;

/** Attributes per asset when MAX_ATTRIBUTES is not set. */
export const DEFAULT_MAX_ATTRIBUTES = 256;

/**
 * Does `value` nest objects and arrays more than `limit` levels deep? `[]` and
 * `{}` are one level, a scalar none. Walked without recursion, so any depth is
 * answered, and it stops at the first level too many.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    const children = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const child of children) if (typeof child === 'object' && child !== null) pending.push({ value: child, depth });
  }
  return false;
}

/** Refuses an attribute whose value or metadata nests deeper than MAX_NESTING, naming it. */
export function checkAttributeNesting(name: string, value: unknown, metadata: unknown): void {
  if (nestsDeeperThan(value, MAX_NESTING)) throw badRequest(`Asset attribute ${name}.value is nested more than ${MAX_NESTING} levels deep`);
  if (nestsDeeperThan(metadata, MAX_NESTING)) {
    throw badRequest(`Asset attribute ${name}.metadata is nested more than ${MAX_NESTING} levels deep`);
  }
}

/** Refuses a body, or an asset as a write would leave it, with more attributes than `max`. */
export function checkAttributeCount(count: number, max: number): void {
  if (count > max) throw badRequest(tooManyAttributes(max));
}

/** The refusal of an asset with more attributes than `max`. */
export const tooManyAttributes = (max: number): string => `An asset has at most ${max} attributes (MAX_ATTRIBUTES), TimeInstant included`;
