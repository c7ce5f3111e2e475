import type { AssetFeature } from '../types';
import type { LiveChange } from './stream';

/** The visible area, [west, south, east, north] in degrees. */
export type Bounds = [number, number, number, number];

const inside = (b: Bounds, lat: number, lon: number): boolean => lat >= b[1] && lat <= b[3] && lon >= b[0] && lon <= b[2];

/** What an asset id tells of a city asset: `urn:oc:entity:<site>:<service>:<provider>:<group>:<name>`, shorter forms too. */
function segments(id: string, site: string): Pick<AssetFeature['properties'], 'service' | 'provider' | 'group' | 'name'> {
  const rest = id.split(':').slice(4);
  if (site === 'experimenters') return { service: null, provider: null, group: null, name: rest.slice(2).join(':') || id };
  const [a, b, c, ...more] = rest;
  switch (rest.length) {
    case 0: return { service: null, provider: null, group: null, name: id };
    case 1: return { service: null, provider: null, group: null, name: a! };
    case 2: return { service: a!, provider: null, group: null, name: b! };
    case 3: return { service: a!, provider: b!, group: null, name: c! };
    default: return { service: a!, provider: b!, group: c!, name: more.join(':') };
  }
}

/**
 * The features of the visible area after these changes: a created asset
 * appears, an updated one moves and counts as just heard from, one that left
 * the area or was deleted disappears. Pure: the map redraws from what it returns.
 */
export function applyChanges(features: readonly AssetFeature[], changes: readonly LiveChange[], bounds: Bounds): AssetFeature[] {
  const byId = new Map(features.map((f) => [f.properties.id, f]));
  for (const c of changes) {
    const known = byId.get(c.id);
    if (c.kind === 'delete') {
      byId.delete(c.id);
      continue;
    }
    const lat = c.position?.latitude;
    const lon = c.position?.longitude;
    if (typeof lat !== 'number' || typeof lon !== 'number' || !inside(bounds, lat, lon)) {
      byId.delete(c.id);
      continue;
    }
    const time = Date.parse(c.time);
    const properties = known
      ? { ...known.properties, last_update_at: Number.isNaN(time) ? known.properties.last_update_at : time }
      : {
        ...segments(c.id, c.site), id: c.id, type: c.type, site: c.site,
        origin: c.site === 'experimenters' ? 'experiment' : 'city', last_update_at: Number.isNaN(time) ? Date.now() : time,
      } as AssetFeature['properties'];
    byId.set(c.id, { ...(known ?? { type: 'Feature' as const }), geometry: { type: 'Point', coordinates: [lon, lat] }, properties });
  }
  return [...byId.values()];
}
