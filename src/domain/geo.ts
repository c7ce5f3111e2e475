/**
 * Geographic rules of discovery: distances on a sphere and point-in-polygon on
 * longitude/latitude. The store evaluates the same formulas (see
 * storage/repositories/discovery-geo.ts), so a brute-force check here agrees
 * with what a query returns.
 */

/** Mean Earth radius in metres: the sphere PostGIS also uses for spherical distances. */
export const EARTH_RADIUS_M = 6_371_008.7714;

export const DEG = Math.PI / 180;

export interface Point {
  latitude: number;
  longitude: number;
}

/** An axis-aligned box in degrees. */
export interface Box {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/** A spherical cap: every point whose central angle to the centre is at most `radius` (radians). */
export interface Circle {
  centre: Point;
  radius: number;
}

/** A closed ring of [longitude, latitude] vertices (GeoJSON order), the closing vertex not repeated. */
export type Ring = ReadonlyArray<readonly [number, number]>;

export const WHOLE_WORLD: Box = { minLon: -180, maxLon: 180, minLat: -90, maxLat: 90 };

export function kmToRadians(km: number): number {
  return (km * 1000) / EARTH_RADIUS_M;
}

export function radiansToKm(radians: number): number {
  return (radians * EARTH_RADIUS_M) / 1000;
}

/**
 * The haversine term hav(θ) of the central angle θ between two points; it grows
 * with θ, so comparing it with hav(radius) decides "inside" without asin or sqrt.
 */
export function haversineTerm(a: Point, b: Point): number {
  const phi1 = a.latitude * DEG;
  const phi2 = b.latitude * DEG;
  const dPhi = Math.sin((phi2 - phi1) / 2);
  const dLambda = Math.sin((b.longitude * DEG - a.longitude * DEG) / 2);
  return dPhi ** 2 + Math.cos(phi1) * Math.cos(phi2) * dLambda ** 2;
}

/** hav(radius): the bound `haversineTerm` is compared with. */
export function haversineBound(radius: number): number {
  return Math.sin(radius / 2) ** 2;
}

/** Central angle in radians. */
export function centralAngle(a: Point, b: Point): number {
  return 2 * Math.asin(Math.min(1, Math.sqrt(haversineTerm(a, b))));
}

export function distanceKm(a: Point, b: Point): number {
  return radiansToKm(centralAngle(a, b));
}

/** Does the cap cover the whole sphere (no filtering needed)? */
export function coversSphere(circle: Circle): boolean {
  return circle.radius >= Math.PI;
}

export function insideCircle(point: Point, circle: Circle): boolean {
  return coversSphere(circle) || haversineTerm(circle.centre, point) <= haversineBound(circle.radius);
}

/**
 * A box that holds the whole cap (the index prefilter). Caps over a pole or
 * across the antimeridian get every longitude: correct, only less selective.
 */
export function circleBox(circle: Circle): Box {
  if (coversSphere(circle)) return WHOLE_WORLD;
  const { latitude, longitude } = circle.centre;
  const r = circle.radius / DEG;
  const minLat = latitude - r;
  const maxLat = latitude + r;
  if (minLat <= -90 || maxLat >= 90) return { minLon: -180, maxLon: 180, minLat: Math.max(-90, minLat), maxLat: Math.min(90, maxLat) };
  const dLon = Math.asin(Math.min(1, Math.sin(circle.radius) / Math.cos(latitude * DEG))) / DEG;
  const minLon = longitude - dLon;
  const maxLon = longitude + dLon;
  if (minLon < -180 || maxLon > 180) return { minLon: -180, maxLon: 180, minLat, maxLat };
  return { minLon, maxLon, minLat, maxLat };
}

/** Widest circle (radians, about 100 km) and highest latitude (degrees) given an inner box. */
const INNER_BOX_MAX_RADIUS = 100 / (EARTH_RADIUS_M / 1000);
const INNER_BOX_MAX_LATITUDE = 80;
/** What the inner box gives up at its corners, against floating-point rounding. */
const INNER_BOX_SHRINK = 1 - 1e-6;

/**
 * A box every point of which lies inside the circle, taking about two thirds
 * of its area: a position in it needs no distance computed. Its half-height is
 * radius/√2; its half-width is the widest that keeps its equator-side corners
 * (the farthest points of a box this small) inside. Undefined for wide
 * circles, near the poles or across the antimeridian.
 */
export function innerBox(circle: Circle): Box | undefined {
  const { latitude, longitude } = circle.centre;
  if (circle.radius > INNER_BOX_MAX_RADIUS || Math.abs(latitude) > INNER_BOX_MAX_LATITUDE || circle.radius <= 0) return undefined;
  const halfHeight = circle.radius / Math.SQRT2;
  const phi = latitude * DEG;
  const cornerPhi = Math.abs(phi) > halfHeight ? phi - Math.sign(phi) * halfHeight : 0;
  const room = (haversineBound(circle.radius) - haversineBound(halfHeight)) / (Math.cos(phi) * Math.cos(cornerPhi));
  const halfWidth = 2 * Math.asin(Math.sqrt(Math.max(0, room)));
  const dLat = (halfHeight * INNER_BOX_SHRINK) / DEG;
  const dLon = (halfWidth * INNER_BOX_SHRINK) / DEG;
  const box = { minLon: longitude - dLon, maxLon: longitude + dLon, minLat: latitude - dLat, maxLat: latitude + dLat };
  if (box.minLon < -180 || box.maxLon > 180) return undefined;
  return box;
}

/** Grows a box by `margin` degrees on every side (floating-point slack for index prefilters). */
export function padBox(box: Box, margin: number): Box {
  return {
    minLon: Math.max(-180, box.minLon - margin),
    maxLon: Math.min(180, box.maxLon + margin),
    minLat: Math.max(-90, box.minLat - margin),
    maxLat: Math.min(90, box.maxLat + margin),
  };
}

export function ringBox(ring: Ring): Box {
  let minLon = Infinity;
  let maxLon = -Infinity;
  let minLat = Infinity;
  let maxLat = -Infinity;
  for (const [lon, lat] of ring) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  return { minLon, maxLon, minLat, maxLat };
}

/**
 * One edge of a ring as the crossing-number test uses it: the edge from
 * (xi, yi) to (xj, yj), counted when a ray from the point towards +longitude
 * crosses it. Edges along a parallel never count.
 */
export interface RingEdge {
  xi: number;
  yi: number;
  /** xj − xi */
  dx: number;
  /** yj − yi */
  dy: number;
  /** The edge spans latitudes [lowLat, highLat). */
  lowLat: number;
  highLat: number;
}

export function ringEdges(ring: Ring): RingEdge[] {
  const edges: RingEdge[] = [];
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as readonly [number, number];
    const [xj, yj] = ring[j] as readonly [number, number];
    if (yi === yj) continue;
    edges.push({ xi, yi, dx: xj - xi, dy: yj - yi, lowLat: Math.min(yi, yj), highLat: Math.max(yi, yj) });
  }
  return edges;
}

/** Does the edge cross the ray from `point` towards +longitude? (same arithmetic as the store) */
export function edgeCrosses(edge: RingEdge, point: Point): boolean {
  const { latitude: y, longitude: x } = point;
  return y >= edge.lowLat && y < edge.highLat && x < (edge.dx * (y - edge.yi)) / edge.dy + edge.xi;
}

/** Even-odd rule on longitude/latitude treated as plane coordinates. */
export function insideRing(point: Point, ring: Ring): boolean {
  let crossings = 0;
  for (const edge of ringEdges(ring)) if (edgeCrosses(edge, point)) crossings++;
  return crossings % 2 === 1;
}
