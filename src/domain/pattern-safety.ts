/**
 * Regular expressions callers write (NGSI `idPattern`, `typePattern`, `q`'s
 * `~=`) run on the server's event loop, whose backtracking engine can take
 * exponential time on nested repetition such as `(a+)+$`. A pattern that
 * repeats a group holding a repetition (star height above one) is refused; it
 * is rarely what anyone means, and it is what makes such patterns blow up.
 */

const QUANTIFIER_START = /[*+?{]/;

/** Whether `source` repeats a group that itself holds a repetition. */
export function hasNestedRepetition(source: string): boolean {
  // For each open group: does it hold a quantifier?
  const groups: boolean[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      continue;
    }
    if (ch === '(') {
      groups.push(false);
      continue;
    }
    const next = source[i + 1] ?? '';
    if (ch === ')') {
      const heldRepetition = groups.pop() ?? false;
      const repeated = next === '*' || next === '+' || (next === '{' && /^\{\d*,?\d*\}/.test(source.slice(i + 1)) && !/^\{\d+\}/.test(source.slice(i + 1)));
      if (heldRepetition && repeated) return true;
      // A group that holds a repetition, or is repeated, makes its enclosing group hold one.
      if ((heldRepetition || QUANTIFIER_START.test(next)) && groups.length > 0) groups[groups.length - 1] = true;
      continue;
    }
    if ((ch === '*' || ch === '+' || ch === '{') && groups.length > 0) groups[groups.length - 1] = true;
  }
  return false;
}
