/**
 * One colour per asset type, given on first sight and remembered by the browser, so a type keeps its
 * colour from visit to visit (a city shows a few types at once, so twelve colours rarely repeat on
 * screen, which a fixed hash of the name could not promise). Colours are CSS classes (`c0`…`c11`, see
 * styles.css) rather than inline styles, so the page runs under a strict Content-Security-Policy.
 */

export const PALETTE_SIZE = 12;

const STORE_KEY = 'opencity.observatory.colours';

function load(): Map<string, number> {
  try {
    const saved = JSON.parse(localStorage.getItem(STORE_KEY) ?? '[]') as [string, number][];
    return new Map(saved.filter(([k, v]) => typeof k === 'string' && Number.isInteger(v)));
  } catch {
    return new Map();
  }
}

const assigned = load();

function save(): void {
  try {
    localStorage.setItem(STORE_KEY, JSON.stringify([...assigned]));
  } catch {
    // Storage may be full or disabled; colours then last for this visit only.
  }
}

function key(type: string): string {
  return type.toLowerCase();
}

export function colourIndex(type: string): number {
  const k = key(type);
  let index = assigned.get(k);
  if (index === undefined) {
    index = assigned.size % PALETTE_SIZE;
    assigned.set(k, index);
    save();
  }
  return index;
}

export function colourClass(type: string): string {
  return `c${colourIndex(type)}`;
}
