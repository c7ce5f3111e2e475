import type { NgsiAttributes } from './asset-body.js';
import { circleBox, distanceKm, kmToRadians, padBox, type Box, type Point } from './geo.js';
import type { EntityQuery, EntitySelector, OrderKey } from './ngsi-entity-query.js';
import { matchesGeoRelation, type GeoRelation } from './ngsi-georel.js';
import { matchesSimpleQuery } from './ngsi-simple-query.js';
import { positionFromAttributes } from './position.js';

/**
 * How a parsed NGSI v2 entity query (./ngsi-entity-query.ts) is evaluated:
 * whether an entity matches, what the store can answer alone, the bounding box
 * of a geographical condition, and the in-memory order.
 */

/** An entity as the store gives it to the evaluation. */
export interface EntityCandidate {
  id: string;
  type: string;
  /** Epoch ms, for orderBy=dateCreated / dateModified. */
  createdAt: number;
  modifiedAt: number;
  attributes: Readonly<NgsiAttributes>;
}

const selectorHolds = (s: EntitySelector, id: string, type: string): boolean =>
  (s.ids === undefined || s.ids.includes(id)) &&
  (s.types === undefined || s.types.includes(type)) &&
  (s.idPattern === undefined || s.idPattern.test(id)) &&
  (s.typePattern === undefined || s.typePattern.test(type));

/** Whether an id and type pass the selectors (before attributes are read). */
export function matchesSelectors(query: EntityQuery, id: string, type: string): boolean {
  return query.selectors.length === 0 || query.selectors.some((s) => selectorHolds(s, id, type));
}

/** The entity's position for geographical queries: its location attribute (none: it matches no geographical query). */
export function entityPosition(attributes: Readonly<NgsiAttributes>): Point | undefined {
  try {
    // The site's centre is only a tie-breaker for "lat, lon" written swapped; any point does for that.
    return positionFromAttributes(attributes, { latitude: 0, longitude: 0 });
  } catch {
    return undefined;
  }
}

/** Whether an entity passes everything the query asks of it. */
export function matchesEntityQuery(query: EntityQuery, entity: EntityCandidate): boolean {
  if (!matchesSelectors(query, entity.id, entity.type)) return false;
  if (query.q && !matchesSimpleQuery(query.q, entity.attributes)) return false;
  if (query.geo && !matchesGeoRelation(query.geo, entityPosition(entity.attributes))) return false;
  return true;
}

/** Does the query need every entity's attributes looked at (not only its id, type and place in the store's order)? */
export function needsAttributes(query: EntityQuery): boolean {
  return query.q !== undefined || query.geo !== undefined || query.orderBy.some((k) => k.by !== 'builtin');
}

/** Does the query hold a condition the store's id and type lists do not express? */
export function filtersBeyondLists(query: EntityQuery): boolean {
  return needsAttributes(query) || query.selectors.some((s) => s.idPattern !== undefined || s.typePattern !== undefined);
}

/** Is the order one the store gives by itself (creation order, or builtin keys)? */
export function storeOrders(query: EntityQuery): boolean {
  return query.orderBy.every((k) => k.by === 'builtin');
}

/** Metres a geographical prefilter box is widened by, against rounding. */
const BOX_SLACK_DEG = 1e-6;

/** A box every entity matching the geographical condition lies in (the index prefilter), when there is one. */
export function geoPrefilterBox(geo: GeoRelation | undefined): Box | undefined {
  if (!geo) return undefined;
  if (geo.relation === 'disjoint') return undefined;
  if (geo.relation === 'near') {
    if (geo.maxDistanceM === undefined) return undefined;
    return padBox(circleBox({ centre: geo.shape.points[0] as Point, radius: kmToRadians(geo.maxDistanceM / 1000) }), BOX_SLACK_DEG);
  }
  const points = geo.shape.points;
  const box = {
    minLon: Math.min(...points.map((p) => p.longitude)),
    maxLon: Math.max(...points.map((p) => p.longitude)),
    minLat: Math.min(...points.map((p) => p.latitude)),
    maxLat: Math.max(...points.map((p) => p.latitude)),
  };
  // A point "on" a line may lie a little beside it.
  return padBox(box, geo.shape.geometry === 'line' ? 0.0001 : BOX_SLACK_DEG);
}

/** Rank of a JSON value's kind when ordering mixed kinds (Orion follows MongoDB: null, number, text, object, array, boolean). */
function kindRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (Array.isArray(value)) return 4;
  if (typeof value === 'object') return 3;
  return 5;
}

function compareValues(a: unknown, b: unknown): number {
  const ka = kindRank(a);
  const kb = kindRank(b);
  if (ka !== kb) return ka - kb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const ta = JSON.stringify(a);
  const tb = JSON.stringify(b);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

function keyValue(key: Exclude<OrderKey, { by: 'distance' }>, entity: EntityCandidate): unknown {
  if (key.by === 'attribute') return Object.hasOwn(entity.attributes, key.name) ? entity.attributes[key.name]?.value : undefined;
  switch (key.name) {
    case 'id': return entity.id;
    case 'type': return entity.type;
    case 'dateCreated': return entity.createdAt;
    case 'dateModified': return entity.modifiedAt;
  }
}

/**
 * Orders entities in memory by the query's keys; entities are given in the
 * store's creation order, which breaks every tie (so pages never overlap).
 */
export function orderEntities<T extends EntityCandidate>(query: EntityQuery, entities: readonly T[]): T[] {
  const keys = query.orderBy;
  if (keys.length === 0) return [...entities];
  const indexed = entities.map((entity, index) => ({ entity, index, distance: 0 }));
  if (keys[0]?.by === 'distance' && query.geo?.relation === 'near') {
    const centre = query.geo.shape.points[0] as Point;
    for (const item of indexed) {
      const position = entityPosition(item.entity.attributes);
      item.distance = position ? distanceKm(position, centre) : Infinity;
    }
  }
  indexed.sort((a, b) => {
    for (const key of keys) {
      if (key.by === 'distance') {
        if (a.distance !== b.distance) return a.distance - b.distance;
        continue;
      }
      const order = compareValues(keyValue(key, a.entity), keyValue(key, b.entity));
      if (order !== 0) return key.descending ? -order : order;
    }
    return a.index - b.index;
  });
  return indexed.map((item) => item.entity);
}

/** The `unique` format: an entity's values with repeats left out. */
export function uniqueValues(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value) ?? 'undefined';
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
