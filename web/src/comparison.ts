import type { Api } from './api';
import { assetName, isBoolean } from './format';
import { unitOf } from './units';
import { MAX_COMPARED, type Pair } from './view-state';

/** The assets (each with one attribute) kept side by side on the history chart, at most six. */

export interface Compared extends Pair {
  label: string;
  unit: string;
  boolean: boolean;
}

export const samePair = (a: Pair, b: Pair): boolean => a.id === b.id && a.attr === b.attr;

/** A compared series as the comparison list shows it: its colour on the chart, or null when the chart has no room for it. */
export interface Listed {
  pair: Compared;
  colour: number | null;
}

/**
 * What the chart of the open asset's attribute (`shown`) draws, and how the list of `compared` says
 * so: that series first (always: it is the asset one is looking at), then the compared ones in
 * order, MAX_COMPARED lines in all; a compared one beyond them is listed as not drawn, without a
 * colour, until the open asset is one of them or a series is removed. Colours are the lines' order.
 */
export function chartPlan(shown: Compared, compared: readonly Compared[]): { drawn: Compared[]; listed: Listed[] } {
  const drawn = [shown, ...compared.filter((p) => !samePair(p, shown))].slice(0, MAX_COMPARED);
  const listed = compared.map((pair) => {
    const at = drawn.findIndex((p) => samePair(p, pair));
    return { pair, colour: at < 0 ? null : at };
  });
  return { drawn, listed };
}

export class Comparison {
  private items: Compared[] = [];
  private readonly listeners = new Set<() => void>();

  get list(): readonly Compared[] {
    return this.items;
  }

  get full(): boolean {
    return this.items.length >= MAX_COMPARED;
  }

  has(pair: Pair): boolean {
    return this.items.some((p) => samePair(p, pair));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  add(item: Compared): boolean {
    if (this.has(item) || this.full) return false;
    this.items = [...this.items, item];
    this.changed();
    return true;
  }

  remove(pair: Pair): void {
    this.items = this.items.filter((p) => !samePair(p, pair));
    this.changed();
  }

  /** Restores pairs from a shared address, learning each attribute's unit and kind from the asset's current values. */
  async restore(api: Api, pairs: Pair[]): Promise<void> {
    const resolved = await Promise.all(pairs.slice(0, MAX_COMPARED).map(async (pair): Promise<Compared> => {
      try {
        const data = await api.assetData(pair.id);
        const attribute = data.attributes.find((a) => a.name === pair.attr);
        const value = attribute ? (typeof attribute.value === 'string' ? attribute.value : JSON.stringify(attribute.value)) : '';
        return { ...pair, label: `${assetName(pair.id)} · ${pair.attr}`, unit: attribute ? unitOf(attribute) : '', boolean: isBoolean(value) };
      } catch {
        return { ...pair, label: `${assetName(pair.id)} · ${pair.attr}`, unit: '', boolean: false };
      }
    }));
    this.items = resolved;
    this.changed();
  }
}
