import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { circleBox, EARTH_RADIUS_M, haversineBound, innerBox, type Box, type Circle } from '../../domain/geo.js';
import { PreparedQuery } from '../prepared-query.js';
import { readPrepared } from '../prepared-read.js';
import type { AssetQueries, Executor, StoreReader } from '../ports.js';
import { rowsBySeq } from '../shared/asset-rows.js';
import { centreTerms, haversineTermSql, indexable, containsPattern, rawAttributeTextContains, type CentreTerms, type HaversineSql } from '../shared/discovery-geometry.js';

/**
 * SQLite's SQL of discovery: positions in two R*Trees (one of city assets, one
 * of the experimenters'), lists of values as JSON arrays, JSON functions.
 */

/** The seqs `id` of the live assets whose position the R*Trees may hold in the box. */
export function positionsInBox(box: Box): RawBuilder<{ id: number }> {
  const inBox = sql`min_lon <= ${box.maxLon} and max_lon >= ${box.minLon} and min_lat <= ${box.maxLat} and max_lat >= ${box.minLat}`;
  return sql<{ id: number }>`select id from city_positions where ${inBox} union all select id from experiment_positions where ${inBox}`;
}

/**
 * Twice what single precision's rounding can move a position in the R*Tree,
 * in radians: a rounded position this far inside or outside the circle is
 * inside or outside whatever its exact position. The R*Tree widens a point to
 * the floats around it, so the centre of its box is within half a unit of the
 * last place of each coordinate: under 1 m in all.
 */
const ROUNDING_SLACK = 2 / EARTH_RADIUS_M;

/** What cityAssetsInBox takes: a box, the limit. */
type BoxWalkParameters = [minLon: number, maxLon: number, minLat: number, maxLat: number, limit: number];

/** What cityAssetSeqsInCircle takes: the circle's box, the box already walked, its centre's terms, three bounds, the limit. */
type CircleWalkParameters = [
  minLon: number, maxLon: number, minLat: number, maxLat: number,
  walkedMinLon: number, walkedMaxLon: number, walkedMinLat: number, walkedMaxLat: number,
  phi: number, cosPhi: number, lambda: number, inside: number, nearEdge: number, exact: number, limit: number,
];

/** A box no position lies in. */
const NO_BOX: Box = { minLon: 1, maxLon: 0, minLat: 1, maxLat: 0 };

/** The parameters of cityAssetSeqsInCircle for a circle, the box already walked (if any) and a limit. */
function circleWalkParameters(circle: Circle, walked: Box | undefined, limit: number): CircleWalkParameters {
  const box = circleBox(circle);
  const w = walked ?? NO_BOX;
  const { phi, cosPhi, lambda } = centreTerms(circle.centre) as { phi: number; cosPhi: number; lambda: number };
  return [
    box.minLon, box.maxLon, box.minLat, box.maxLat, w.minLon, w.maxLon, w.minLat, w.maxLat, phi, cosPhi, lambda,
    haversineBound(Math.max(0, circle.radius - ROUNDING_SLACK)), haversineBound(circle.radius + ROUNDING_SLACK), haversineBound(circle.radius), limit,
  ];
}

/**
 * The seqs of the first `limit` live city assets whose rounded box in the
 * R*Tree (0600-city-positions) lies wholly inside the box, in the tree's
 * order. With the inner box of a circle (domain/geo.ts), they are inside the
 * circle with no distance computed: the tree alone answers.
 */
function cityAssetsInBox(p: readonly unknown[]): RawBuilder<{ seq: number }> {
  const [minLon, maxLon, minLat, maxLat, limit] = p;
  return sql<{ seq: number }>`select r.id as seq from city_positions r
    where r.min_lon >= ${minLon} and r.max_lon <= ${maxLon} and r.min_lat >= ${minLat} and r.max_lat <= ${maxLat}
    limit ${limit}`;
}

/**
 * The seqs of the first `limit` live city assets in the (indexable) circle
 * that cityAssetsInBox did not give for the box already walked, in the order
 * of their R*Tree, read from that tree alone (and, near the circle's edge, the
 * row's exact position). Written with the markers of a prepared query, so
 * that its text never changes.
 */
function cityAssetSeqsInCircle(p: readonly unknown[], haversine: HaversineSql): RawBuilder<{ seq: number }> {
  const [minLon, maxLon, minLat, maxLat, wMinLon, wMaxLon, wMinLat, wMaxLat, phi, cosPhi, lambda, inside, nearEdge, exact, limit] = p;
  const centre = { phi, cosPhi, lambda } as CentreTerms;
  // The R*Tree keeps rounded boxes: their centre decides, except near the edge, where the row's exact position does.
  const rounded = haversine(centre, sql<number>`((r.min_lat + r.max_lat) / 2)`, sql<number>`((r.min_lon + r.max_lon) / 2)`);
  return sql<{ seq: number }>`select r.id as seq from city_positions r
    where r.min_lon <= ${maxLon} and r.max_lon >= ${minLon} and r.min_lat <= ${maxLat} and r.max_lat >= ${minLat}
      and not (r.min_lon >= ${wMinLon} and r.max_lon <= ${wMaxLon} and r.min_lat >= ${wMinLat} and r.max_lat <= ${wMaxLat})
      and (${rounded} <= ${inside}
        or (${rounded} <= ${nearEdge}
          and exists (select 1 from assets where assets.seq = r.id and ${haversine(centre, sql.ref('assets.latitude'), sql.ref('assets.longitude'))} <= ${exact})))
    limit ${limit}`;
}

/** The walks of the R*Tree of city positions, each compiled once: building their SQL costs more than running them. */
const CITY_BOX_WALK = new PreparedQuery<BoxWalkParameters, { seq: number }>(5, (_db, p) => cityAssetsInBox(p));
const CITY_CIRCLE_WALK = new PreparedQuery<CircleWalkParameters, { seq: number }>(15, (_db, p) => cityAssetSeqsInCircle(p, haversineTermSql));

/** The seqs of the first `limit` live city assets in the circle, in the order of the R*Tree, read from that tree alone. */
async function cityAssetSeqs(store: StoreReader, circle: Circle, limit: number): Promise<number[]> {
  // The circle's inner box first: the tree alone tells that those positions are inside, where the rest costs a distance each.
  const inner = innerBox(circle);
  const first = inner ? await readPrepared(store, CITY_BOX_WALK, [inner.minLon, inner.maxLon, inner.minLat, inner.maxLat, limit]) : [];
  const rest = first.length < limit ? await readPrepared(store, CITY_CIRCLE_WALK, circleWalkParameters(circle, inner, limit - first.length)) : [];
  // An asset that moved between the two walks may come twice: once is enough.
  return [...new Set([...first, ...rest].map((r) => Number(r.seq)))];
}

export const sqliteAssetQueries: AssetQueries = {
  positionMayBeIn(box) {
    if (!indexable(box)) return sql<SqlBool>`true`;
    // The R*Trees round their stored boxes outwards, so the plain comparison is already safe.
    return sql<SqlBool>`assets.seq in (${positionsInBox(box)})`;
  },
  spatialSource(box) {
    // SQLite streams its R*Tree, so a LIMIT stops early.
    if (!indexable(box)) return undefined;
    return sql<{ id: number }>`(${positionsInBox(box)})`.as('r');
  },
  filterColumn(column, useIndex) {
    // Unary + keeps SQLite from answering the filter through the column's index: it walks the order's index instead.
    const ref = sql.ref(`assets.${column}`);
    return useIndex ? sql`${ref}` : sql`+${ref}`;
  },
  idStartsWith(prefix) {
    // SQLite compares text byte by byte, so the prefix is a range of the id index.
    const last = prefix.codePointAt(prefix.length - 1) ?? 0;
    const head = prefix.slice(0, prefix.length - (last > 0xffff ? 2 : 1));
    const exact = sql<SqlBool>`substr(assets.id, 1, ${[...prefix].length}) = ${prefix}`;
    if (last >= 0x10ffff) return exact;
    const upper = head + String.fromCodePoint(last + 1);
    return sql<SqlBool>`(assets.id >= ${prefix} and assets.id < ${upper} and ${exact})`;
  },
  attributeTextContains(term) {
    const pattern = containsPattern(term);
    // SQLite's JSON functions refuse a document nested more than 1,000 levels deep, as a store written
    // before values were bounded may hold (src/domain/attribute-bounds.ts): json_valid says so, and
    // such an asset is then found by its id, type and site only instead of failing the whole search.
    // CASE, unlike AND, is evaluated in its order.
    return sql<SqlBool>`(${rawAttributeTextContains(pattern, term)} and case when not json_valid(assets.attrs) then 0 else exists (
    select 1 from json_each(assets.attrs) a
    where lower(a.key) like ${pattern} escape '\\'
       or (json_type(a.value, '$.metadata') = 'object' and exists (
            select 1 from json_each(a.value, '$.metadata') m
            where json_type(m.value) = 'object' and lower(case json_type(m.value, '$.value')
              when 'true' then 'true' when 'false' then 'false' when 'null' then '' else json_extract(m.value, '$.value') end) like ${pattern} escape '\\'))) end)`;
  },
  listParameter(values) {
    return JSON.stringify(values);
  },
  listed(column, list) {
    return sql<SqlBool>`${sql.ref(`assets.${column}`)} in (select value from json_each(${list}))`;
  },
  seqPage(seqs, limit, offset) {
    // A subquery goes into SQL in parentheses of its own.
    return sql<SqlBool>`assets.seq in ${seqs.limit(limit as number).offset(offset as number)}`;
  },
  async cityPage(store, circle, reach, from, to) {
    const seqs = await cityAssetSeqs(store, circle, reach);
    return { walked: seqs.length, rows: await rowsBySeq(store, seqs.slice(from, to), false) };
  },
  async seqsInBox(db: Executor, box) {
    const result = await positionsInBox(box).execute(db);
    return result.rows.map((r) => r.id);
  },
};
