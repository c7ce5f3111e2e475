import type { Point } from '../../domain/geo.js';
import type { Store } from '../store.js';

/**
 * Where the store has each of these assets (deleted ones too: a deleted asset
 * keeps its row), in one statement, for the live event stream.
 */
export async function assetPositions(store: Store, ids: readonly string[]): Promise<Map<string, Point>> {
  const positions = new Map<string, Point>();
  if (ids.length === 0) return positions;
  const rows = await store.read.selectFrom('assets').select(['id', 'latitude', 'longitude']).where('id', 'in', [...new Set(ids)]).execute();
  for (const r of rows) positions.set(r.id, { latitude: Number(r.latitude), longitude: Number(r.longitude) });
  return positions;
}
