/**
 * The area of a geo search (`/assets/geo/search`, `/assets/{urn}/nearby`).
 * Every constraint given applies (they combine with AND):
 * - a circle: centre `lat` + `long` (or the location of `ip`, or the asset for
 *   nearby), `radius` in radians, or in kilometres with `km=true`, 1 km when absent;
 * - a polygon: `points`, a JSON array of [longitude, latitude] pairs (GeoJSON
 *   order), with `query=polygon` (the only query there is);
 * - `city`: only that site's assets.
 */
import { isIP } from 'node:net';
import { kmToRadians, type Circle, type Point, type Ring } from './geo.js';
import { DEFAULT_RADIUS_KM, MAX_POLYGON_VERTICES } from './geo-limits.js';
import { invalidParameter as invalid } from './query-parameter.js';

/**
 * Geographic searches count their matches up to this many: a dense area may
 * hold hundreds of thousands, and counting them all would cost a read of each.
 * Beyond it X-Total-Count is left out (a short page still ends the list).
 */
export const GEO_TOTAL_CAP = 100;

export interface GeoArea {
  circle?: Circle;
  ring?: Ring;
  city?: string;
}

export interface GeoParams {
  lat?: string;
  long?: string;
  radius?: string;
  km?: string;
  query?: string;
  points?: string;
  ip?: string;
  city?: string;
}

/** Finds where an IP address is, without leaving the machine; undefined when it cannot tell. */
export type IpLocator = (ip: string) => Point | undefined;

/** Without an IP location database (IP_LOCATION_DB), every address is unknown. */
export const noIpLocations: IpLocator = () => undefined;


const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

export function decimal(name: string, text: string, min: number, max: number): number {
  const t = text.trim();
  const value = DECIMAL.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(value) || value < min || value > max) throw invalid(name, `must be a number between ${min} and ${max}`);
  return value;
}

/** `km`: present without a value, `true`, `1` or `yes` mean kilometres; `false`, `0`, `no` mean radians. */
export function parseKm(text: string | undefined): boolean {
  if (text === undefined) return false;
  const t = text.trim().toLowerCase();
  if (t === '' || t === 'true' || t === '1' || t === 'yes') return true;
  if (t === 'false' || t === '0' || t === 'no') return false;
  throw invalid('km', 'expected true or false');
}

/** The radius in radians (a half-circumference at most: beyond that the cap is the whole sphere). */
export function parseRadius(radius: string | undefined, km: string | undefined): number {
  const inKm = parseKm(km);
  if (radius === undefined) return kmToRadians(DEFAULT_RADIUS_KM);
  const value = inKm ? decimal('radius', radius, 0, 20_100) : decimal('radius', radius, 0, Math.PI);
  if (value <= 0) throw invalid('radius', 'must be greater than 0');
  return inKm ? Math.min(Math.PI, kmToRadians(value)) : value;
}

/** `points`: a JSON array of at least 3 distinct [longitude, latitude] pairs; a repeated closing vertex is dropped. */
export function parsePoints(text: string, minVertices = 3): Array<[number, number]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('points', 'expected a JSON array of [longitude, latitude] pairs, e.g. [[-3.81,43.46],[-3.80,43.46],[-3.80,43.47]]');
  }
  if (!Array.isArray(parsed)) throw invalid('points', 'expected a JSON array of [longitude, latitude] pairs');
  if (parsed.length > MAX_POLYGON_VERTICES + 1) throw invalid('points', `at most ${MAX_POLYGON_VERTICES} vertices`);
  const ring: Array<[number, number]> = parsed.map((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'number' || typeof pair[1] !== 'number') {
      throw invalid('points', `item ${i} is not a [longitude, latitude] pair of numbers`);
    }
    const [lon, lat] = pair as [number, number];
    if (!Number.isFinite(lon) || lon < -180 || lon > 180) throw invalid('points', `item ${i}: longitude must be between -180 and 180`);
    if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw invalid('points', `item ${i}: latitude must be between -90 and 90`);
    return [lon, lat];
  });
  const first = ring[0];
  const last = ring[ring.length - 1];
  if (ring.length > 1 && first && last && first[0] === last[0] && first[1] === last[1]) ring.pop();
  const distinct = new Set(ring.map(([lon, lat]) => `${lon},${lat}`));
  if (distinct.size < minVertices) throw invalid('points', `a polygon needs at least ${minVertices} distinct [longitude, latitude] pairs`);
  return ring;
}

function parseQuery(query: string | undefined): void {
  if (query !== undefined && query.trim().toLowerCase() !== 'polygon') throw invalid('query', "the only geo query is 'polygon' (with points)");
}

function parseCity(city: string | undefined): string | undefined {
  if (city === undefined) return undefined;
  if (city.trim() === '') throw invalid('city', 'must name a site');
  return city.trim();
}

function polygonOf(params: GeoParams, anchor?: Point): Ring | undefined {
  parseQuery(params.query);
  if (params.points === undefined) {
    if (params.query !== undefined) throw invalid('points', 'query=polygon needs points, a JSON array of [longitude, latitude] pairs');
    return undefined;
  }
  if (!anchor) return parsePoints(params.points);
  // Nearby: the asset's own position is the polygon's first vertex.
  return [[anchor.longitude, anchor.latitude], ...parsePoints(params.points, 2)];
}

/** Does the area narrow by position (a circle short of the whole sphere, or a polygon)? */
export function hasShape(area: GeoArea | undefined): boolean {
  return area !== undefined && (area.ring !== undefined || (area.circle !== undefined && area.circle.radius < Math.PI));
}

/** The area of `/assets/geo/search`. */
export function parseGeoSearch(params: GeoParams, locateIp: IpLocator = noIpLocations): GeoArea {
  const area: GeoArea = {};
  const hasLat = params.lat !== undefined;
  const hasLong = params.long !== undefined;
  if (hasLat !== hasLong) throw invalid(hasLat ? 'long' : 'lat', 'lat and long go together: give both, or neither');
  let centre: Point | undefined;
  if (hasLat && hasLong) {
    centre = { latitude: decimal('lat', params.lat as string, -90, 90), longitude: decimal('long', params.long as string, -180, 180) };
  } else if (params.ip !== undefined) {
    const ip = params.ip.trim();
    if (isIP(ip) === 0) throw invalid('ip', 'expected an IPv4 or IPv6 address');
    centre = locateIp(ip);
    if (!centre) throw invalid('ip', `the location of ${ip} cannot be resolved on this platform; give lat and long instead`);
  }
  if (centre) area.circle = { centre, radius: parseRadius(params.radius, params.km) };
  else if (params.radius !== undefined) throw invalid('radius', 'a radius needs a centre: give lat and long');
  else parseKm(params.km);

  const ring = polygonOf(params);
  if (ring) area.ring = ring;
  const city = parseCity(params.city);
  if (city !== undefined) area.city = city;
  return area;
}

/**
 * The area of `/assets/{urn}/nearby` around an asset at `centre`: a circle of
 * `radius` (1 km by default), or, with a polygon, the polygon alone.
 */
export function parseNearby(params: Omit<GeoParams, 'lat' | 'long' | 'ip'>, centre: Point): GeoArea {
  const area: GeoArea = {};
  const ring = polygonOf(params, centre);
  if (ring) {
    area.ring = ring;
    if (params.radius !== undefined) area.circle = { centre, radius: parseRadius(params.radius, params.km) };
  } else {
    area.circle = { centre, radius: parseRadius(params.radius, params.km) };
  }
  const city = parseCity(params.city);
  if (city !== undefined) area.city = city;
  return area;
}
