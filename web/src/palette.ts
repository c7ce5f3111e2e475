/**
 * One colour per asset type, given on first sight and kept for the whole visit (a city shows a few
 * types at once, so twelve colours rarely repeat on screen). Colours are CSS classes (`c0`…`c11`, see
 * styles.css) rather than inline styles, so the page runs under a strict Content-Security-Policy.
 */

export const PALETTE_SIZE = 12;
const hex = ['#2563eb', '#16a34a', '#ea580c', '#9333ea', '#0891b2', '#db2777', '#ca8a04', '#4f46e5', '#65a30d', '#dc2626', '#0d9488', '#a16207'];

const assigned = new Map<string, number>();

function key(type: string): string {
  return type.toLowerCase();
}

export function colourIndex(type: string): number {
  const k = key(type);
  let index = assigned.get(k);
  if (index === undefined) {
    index = assigned.size % PALETTE_SIZE;
    assigned.set(k, index);
  }
  return index;
}

export function colourClass(type: string): string {
  return `c${colourIndex(type)}`;
}

export function colourHex(type: string): string {
  return hex[colourIndex(type)]!;
}
