import { badRequest } from './errors.js';

export interface Position {
  latitude: number;
  longitude: number;
}

/** The attributes a position is read from, in order of preference. */
const POSITION_ATTRIBUTES = ['location', 'position'] as const;
const TEXT_TYPES = new Set(['geo:point', 'coords']);
const GEOJSON_TYPE = 'geo:json';

interface TypedValue {
  type: string;
  value: unknown;
}

const inRange = (p: Position): boolean =>
  Number.isFinite(p.latitude) && Number.isFinite(p.longitude) && Math.abs(p.latitude) <= 90 && Math.abs(p.longitude) <= 180;

const squaredDistance = (a: Position, b: Position): number => (a.latitude - b.latitude) ** 2 + (a.longitude - b.longitude) ** 2;

/**
 * "lat, lon" (geo:point, and the older coords "lat,lon"). Some real sites wrote
 * "lon,lat"; when the swapped reading is the one near the site, it is taken.
 */
function fromText(name: string, text: unknown, near: Position): Position {
  const parts = typeof text === 'string' ? text.split(',') : [];
  const numbers = parts.map((p) => (p.trim() === '' ? Number.NaN : Number(p)));
  if (numbers.length !== 2 || numbers.some((n) => !Number.isFinite(n))) {
    throw badRequest(`Asset attribute ${name} is not a valid point: expected "latitude, longitude"`);
  }
  const direct = { latitude: numbers[0] as number, longitude: numbers[1] as number };
  const swapped = { latitude: direct.longitude, longitude: direct.latitude };
  if (!inRange(direct)) {
    if (inRange(swapped)) return swapped;
    throw badRequest(`Asset attribute ${name} is out of range: latitude must be within ±90 and longitude within ±180`);
  }
  return inRange(swapped) && squaredDistance(swapped, near) < squaredDistance(direct, near) ? swapped : direct;
}

/** Every [lon, lat] pair of a GeoJSON geometry's coordinates, however deeply nested. */
function collectPairs(coordinates: unknown, out: Array<[number, number]>): boolean {
  if (!Array.isArray(coordinates)) return false;
  if (coordinates.length >= 2 && typeof coordinates[0] === 'number' && typeof coordinates[1] === 'number') {
    out.push([coordinates[0], coordinates[1]]);
    return true;
  }
  return coordinates.length > 0 && coordinates.every((c) => collectPairs(c, out));
}

/** A GeoJSON Point gives itself; any other geometry the centre of its bounding box. */
function fromGeoJson(name: string, value: unknown): Position {
  const geometry = value as { type?: unknown; coordinates?: unknown } | null;
  const pairs: Array<[number, number]> = [];
  if (!geometry || typeof geometry !== 'object' || typeof geometry.type !== 'string' || !collectPairs(geometry.coordinates, pairs)) {
    throw badRequest(`Asset attribute ${name} is not a valid geo:json geometry: expected {"type": "Point", "coordinates": [longitude, latitude]}`);
  }
  let [minLon, minLat, maxLon, maxLat] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lon, lat] of pairs) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  const position = { longitude: (minLon + maxLon) / 2, latitude: (minLat + maxLat) / 2 };
  if (!inRange(position)) throw badRequest(`Asset attribute ${name} is out of range: latitude must be within ±90 and longitude within ±180`);
  return position;
}

/**
 * The position the attributes of a request give, or undefined when they give
 * none (a create then falls back to the site's centre; an update keeps the
 * asset where it was). `near` is the site's centre.
 */
export function positionFromAttributes(attributes: Readonly<Record<string, TypedValue>>, near: Position): Position | undefined {
  for (const name of POSITION_ATTRIBUTES) {
    const attribute = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
    if (!attribute) continue;
    if (TEXT_TYPES.has(attribute.type)) return fromText(name, attribute.value, near);
    if (attribute.type === GEOJSON_TYPE) return fromGeoJson(name, attribute.value);
  }
  return undefined;
}
