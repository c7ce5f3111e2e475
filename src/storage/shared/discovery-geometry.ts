import { sql, type RawBuilder } from 'kysely';
import { circleBox, DEG, type Box, type Circle, type Point } from '../../domain/geo.js';

/**
 * Geometry that discovery's SQL shares between the stores: when an index of
 * positions helps, and the haversine distance written in SQL.
 */

/** Slack around index boxes for floating-point rounding (degrees, about 0.1 mm). */
export const BOX_SLACK = 1e-9;

/** Beyond this span (degrees) a box selects too much for an index to help, and geodesic edges get unwieldy. */
const MAX_INDEXED_SPAN = 90;

export const indexable = (box: Box): boolean => box.maxLon - box.minLon <= MAX_INDEXED_SPAN && box.maxLat - box.minLat <= MAX_INDEXED_SPAN;

/** Is the circle narrow enough for an index of positions to help? */
export function indexableCircle(circle: Circle): boolean {
  return indexable(circleBox(circle));
}

/** A circle's centre as the haversine needs it: latitude and longitude in radians, and the latitude's cosine. */
export interface CentreTerms {
  phi: number | RawBuilder<number>;
  cosPhi: number | RawBuilder<number>;
  lambda: number | RawBuilder<number>;
}

/** The haversine term of the distance from a circle's centre to the position (latitude, longitude), in SQL. */
export type HaversineSql = (centre: CentreTerms, latitude: RawBuilder<number>, longitude: RawBuilder<number>) => RawBuilder<number>;

export const centreTerms = (centre: Point): CentreTerms => {
  const phi = centre.latitude * DEG;
  return { phi, cosPhi: Math.cos(phi), lambda: centre.longitude * DEG };
};

/** The haversine term of the distance from a centre to a position, in SQL; the same arithmetic as domain/geo.ts. */
export const haversineTermSql: HaversineSql = (c, latitude, longitude) =>
  sql<number>`(power(sin((radians(${latitude}) - ${c.phi}) / 2), 2) + ${c.cosPhi} * cos(radians(${latitude})) * power(sin((radians(${longitude}) - ${c.lambda}) / 2), 2))`;

/** A LIKE pattern (escape character `\`) that matches text containing `term`. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The cheap test on the whole attribute text that runs before the JSON is opened. */
export function rawAttributeTextContains(pattern: string, term: string): RawBuilder<unknown> {
  // JSON text escapes quotes and backslashes: a term holding one cannot be tested on it.
  return /["\\]/.test(term) ? sql`true` : sql`lower(assets.attrs) like ${pattern} escape '\\'`;
}
