import type { Store } from '../store.js';

export interface DictionarySize {
  assetTypes: number;
  attributeTypes: number;
  /** Distinct units named by the attribute types. */
  units: number;
}

/** How much of the type dictionary the store holds (the demo reports it). */
export async function dictionarySize(store: Store): Promise<DictionarySize> {
  const assetTypes = await store.read.selectFrom('asset_types').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
  const attributeTypes = await store.read.selectFrom('attribute_types').select('units').execute();
  const units = new Set<string>();
  for (const row of attributeTypes) {
    for (const unit of JSON.parse(row.units) as Array<{ name?: string }>) if (unit.name) units.add(unit.name);
  }
  return { assetTypes: Number(assetTypes?.n ?? 0), attributeTypes: attributeTypes.length, units: units.size };
}
