/**
 * Colouring markers by a value: eight steps from the lowest to the highest value in view (a
 * sequential scale, dark blue to yellow, readable by most people with a colour vision deficiency),
 * two for true/false, grey for an asset without the attribute. Colours are classes (`v0`…`v7`,
 * `vnone`), as the page's policy allows no inline style.
 */

export const STEPS = 8;
export const NO_VALUE = 'vnone';

export interface Scale {
  min: number;
  max: number;
  boolean: boolean;
}

/** A current value as a number (true/false as 1/0), or null when it is not one. */
export function numericValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    if (value === 'true' || value === 'false') return value === 'true' ? 1 : 0;
    const n = Number(value);
    return value.trim() !== '' && Number.isFinite(n) ? n : null;
  }
  return null;
}

export function scaleOf(values: Iterable<number>, boolean: boolean): Scale | null {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return null;
  return boolean ? { min: 0, max: 1, boolean } : { min, max, boolean };
}

export function stepOf(value: number, scale: Scale): number {
  if (scale.boolean) return value >= 0.5 ? STEPS - 1 : 0;
  if (scale.max === scale.min) return Math.floor(STEPS / 2);
  const f = (value - scale.min) / (scale.max - scale.min);
  return Math.max(0, Math.min(STEPS - 1, Math.floor(f * STEPS)));
}

export function colourClassOf(value: number | null | undefined, scale: Scale | null): string {
  return value === null || value === undefined || !scale ? NO_VALUE : `v${stepOf(value, scale)}`;
}
