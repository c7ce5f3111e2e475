import { badRequest } from './errors.js';
import { distanceKm, insideRing, type Point, type Ring } from './geo.js';

/**
 * NGSI v2 geographical queries (`georel`, `geometry`, `coords`), as Orion's
 * manual defines them, evaluated against an asset's position (a point):
 *   georel   near;maxDistance:M | near;minDistance:M (metres, with a point)
 *            coveredBy | intersects | disjoint | equals
 *   geometry point | line | polygon | box
 *   coords   "lat,lon;lat,lon;…" (latitude first, as NGSI v2 writes them)
 * The three come together or not at all.
 */

export type GeoShape =
  | { geometry: 'point'; points: [Point] }
  | { geometry: 'line'; points: Point[] }
  | { geometry: 'polygon'; points: Point[] }
  | { geometry: 'box'; points: [Point, Point] };

export type GeoRelation =
  | { relation: 'near'; maxDistanceM?: number; minDistanceM?: number; shape: GeoShape }
  | { relation: 'coveredBy' | 'intersects' | 'disjoint' | 'equals'; shape: GeoShape };

export interface GeoQueryText {
  georel?: string | undefined;
  geometry?: string | undefined;
  coords?: string | undefined;
}

/** Vertices a polygon or line may have (the same bound as discovery's polygons). */
const MAX_VERTICES = 500;

function parsePoint(text: string): Point {
  const parts = text.split(',');
  const numbers = parts.map((p) => (p.trim() === '' ? Number.NaN : Number(p)));
  if (numbers.length !== 2 || numbers.some((n) => !Number.isFinite(n))) throw badRequest(`Invalid coords: ${JSON.stringify(text)} is not "latitude,longitude"`);
  const [latitude, longitude] = numbers as [number, number];
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) throw badRequest(`Invalid coords: ${JSON.stringify(text)} is out of range`);
  return { latitude, longitude };
}

function parseShape(geometry: string, coords: string): GeoShape {
  const points = coords.split(';').map(parsePoint);
  if (points.length > MAX_VERTICES) throw badRequest(`Invalid coords: more than ${MAX_VERTICES} points`);
  switch (geometry) {
    case 'point':
      if (points.length !== 1) throw badRequest('Invalid coords: a point has exactly one coordinate pair');
      return { geometry, points: [points[0] as Point] };
    case 'line':
      if (points.length < 2) throw badRequest('Invalid coords: a line has at least two coordinate pairs');
      return { geometry, points };
    case 'box':
      if (points.length !== 2) throw badRequest('Invalid coords: a box has exactly two coordinate pairs');
      return { geometry, points: [points[0] as Point, points[1] as Point] };
    case 'polygon': {
      const first = points[0] as Point;
      const last = points[points.length - 1] as Point;
      if (points.length < 4 || first.latitude !== last.latitude || first.longitude !== last.longitude) {
        throw badRequest('Invalid coords: a polygon has at least four coordinate pairs, the last equal to the first');
      }
      return { geometry, points };
    }
    default:
      throw badRequest(`Invalid geometry: ${JSON.stringify(geometry)} (point, line, polygon or box)`);
  }
}

function parseDistance(name: string, text: string): number {
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(value)) throw badRequest(`Invalid georel: ${name} must be a non-negative number of metres`);
  return value;
}

/** Parses the three parameters; none given is no geographical condition (undefined). */
export function parseGeoRelation(text: GeoQueryText): GeoRelation | undefined {
  const given = [text.georel, text.geometry, text.coords].filter((v) => v !== undefined && v !== '');
  if (given.length === 0) return undefined;
  if (given.length !== 3) throw badRequest('Invalid geographical query: georel, geometry and coords go together');
  const shape = parseShape(text.geometry as string, text.coords as string);
  const [relation, ...modifiers] = (text.georel as string).split(';');
  switch (relation) {
    case 'near': {
      if (shape.geometry !== 'point') throw badRequest('Invalid georel: near needs a point geometry');
      const near: GeoRelation = { relation: 'near', shape };
      for (const modifier of modifiers) {
        const [name, value] = modifier.split(':');
        if (name === 'maxDistance' && value !== undefined) near.maxDistanceM = parseDistance(name, value);
        else if (name === 'minDistance' && value !== undefined) near.minDistanceM = parseDistance(name, value);
        else throw badRequest(`Invalid georel: unknown modifier ${JSON.stringify(modifier)} (maxDistance:M or minDistance:M)`);
      }
      if (near.maxDistanceM === undefined && near.minDistanceM === undefined) throw badRequest('Invalid georel: near needs maxDistance or minDistance');
      return near;
    }
    case 'coveredBy':
    case 'intersects':
    case 'disjoint':
    case 'equals':
      if (modifiers.length > 0) throw badRequest(`Invalid georel: ${relation} takes no modifier`);
      if (relation === 'coveredBy' && shape.geometry !== 'polygon' && shape.geometry !== 'box') throw badRequest('Invalid georel: coveredBy needs a polygon or a box');
      return { relation, shape };
    default:
      throw badRequest(`Invalid georel: ${JSON.stringify(relation)} (near, coveredBy, intersects, disjoint or equals)`);
  }
}

const samePoint = (a: Point, b: Point): boolean => a.latitude === b.latitude && a.longitude === b.longitude;

/** Metres within which a point is taken to lie on a line. */
const ON_LINE_M = 0.5;

function distanceToSegmentKm(p: Point, a: Point, b: Point): number {
  // Planar projection is enough at the scale of "on the line".
  const scale = Math.cos((p.latitude * Math.PI) / 180);
  const ax = a.longitude * scale;
  const bx = b.longitude * scale;
  const px = p.longitude * scale;
  const dx = bx - ax;
  const dy = b.latitude - a.latitude;
  const length = dx * dx + dy * dy;
  const t = length === 0 ? 0 : Math.max(0, Math.min(1, ((px - ax) * dx + (p.latitude - a.latitude) * dy) / length));
  return distanceKm(p, { latitude: a.latitude + t * dy, longitude: a.longitude + t * (b.longitude - a.longitude) });
}

function inBox(p: Point, [a, b]: [Point, Point]): boolean {
  return (
    p.latitude >= Math.min(a.latitude, b.latitude) &&
    p.latitude <= Math.max(a.latitude, b.latitude) &&
    p.longitude >= Math.min(a.longitude, b.longitude) &&
    p.longitude <= Math.max(a.longitude, b.longitude)
  );
}

function touches(position: Point, shape: GeoShape): boolean {
  switch (shape.geometry) {
    case 'point':
      return samePoint(position, shape.points[0]);
    case 'line':
      return shape.points.slice(1).some((b, i) => distanceToSegmentKm(position, shape.points[i] as Point, b) * 1000 <= ON_LINE_M);
    case 'box':
      return inBox(position, shape.points);
    case 'polygon': {
      const ring: Ring = shape.points.slice(0, -1).map((p) => [p.longitude, p.latitude] as const);
      return insideRing(position, ring);
    }
  }
}

/** Whether an asset at `position` satisfies the relation; an asset with no position never does. */
export function matchesGeoRelation(relation: GeoRelation, position: Point | undefined): boolean {
  if (!position) return false;
  switch (relation.relation) {
    case 'near': {
      const metres = distanceKm(position, relation.shape.points[0] as Point) * 1000;
      if (relation.maxDistanceM !== undefined && metres > relation.maxDistanceM) return false;
      if (relation.minDistanceM !== undefined && metres < relation.minDistanceM) return false;
      return true;
    }
    case 'coveredBy':
    case 'intersects':
      return touches(position, relation.shape);
    case 'disjoint':
      return !touches(position, relation.shape);
    case 'equals':
      return relation.shape.geometry === 'point' && samePoint(position, relation.shape.points[0]);
  }
}
