import { sql, type AliasedRawBuilder, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { circleBox, DEG, EARTH_RADIUS_M, haversineBound, type Box, type Circle, type Point } from '../../domain/geo.js';
import { EXPERIMENTERS_SITE } from '../../domain/urn.js';

/**
 * The SQL of discovery that differs between the stores, each a condition on
 * the `assets` table. Everything else discovery asks is plain SQL both run.
 */
type Dialect = 'sqlite' | 'postgres';

/** Slack around index boxes for floating-point rounding (degrees, about 0.1 mm). */
const BOX_SLACK = 1e-9;

/**
 * PostgreSQL indexes positions as geography, where a box's edges are great
 * circles: a wide edge bulges towards the pole and leaves out the strip of the
 * box between it and its parallel. Moving the equator-side edge away by that
 * bulge makes the geodesic box hold the whole longitude/latitude box.
 */
function geodesicBox(box: Box): Box {
  const halfWidth = (((box.maxLon - box.minLon) / 2) * Math.PI) / 180;
  const widen = (lat: number): number => (Math.atan(Math.tan((lat * Math.PI) / 180) * Math.cos(halfWidth)) * 180) / Math.PI;
  const minLat = box.minLat > 0 ? widen(box.minLat) : box.minLat;
  const maxLat = box.maxLat < 0 ? widen(box.maxLat) : box.maxLat;
  return {
    minLon: Math.max(-180, box.minLon - BOX_SLACK),
    maxLon: Math.min(180, box.maxLon + BOX_SLACK),
    minLat: Math.max(-90, minLat - BOX_SLACK),
    maxLat: Math.min(90, maxLat + BOX_SLACK),
  };
}

/** Beyond this span (degrees) a box selects too much for an index to help, and geodesic edges get unwieldy. */
const MAX_INDEXED_SPAN = 90;

const indexable = (box: Box): boolean => box.maxLon - box.minLon <= MAX_INDEXED_SPAN && box.maxLat - box.minLat <= MAX_INDEXED_SPAN;

/**
 * SQLite: the seqs `id` of the live assets whose position the R*Trees (one of
 * city assets, one of the experimenters') may hold in the box.
 */
export function sqlitePositionsInBox(box: Box): RawBuilder<{ id: number }> {
  const inBox = sql`min_lon <= ${box.maxLon} and max_lon >= ${box.minLon} and min_lat <= ${box.maxLat} and max_lat >= ${box.minLat}`;
  return sql<{ id: number }>`select id from city_positions where ${inBox} union all select id from experiment_positions where ${inBox}`;
}

/**
 * The asset's indexed position may lie in the box (an index prefilter: it may
 * let through a few positions outside, never leave out one inside).
 */
export function positionMayBeIn(dialect: Dialect, box: Box): RawBuilder<SqlBool> {
  if (!indexable(box)) return sql<SqlBool>`true`;
  if (dialect === 'sqlite') {
    // The R*Trees round their stored boxes outwards, so the plain comparison is already safe.
    return sql<SqlBool>`assets.seq in (${sqlitePositionsInBox(box)})`;
  }
  const b = geodesicBox(box);
  return sql<SqlBool>`assets.geog && ST_MakeEnvelope(${b.minLon}, ${b.minLat}, ${b.maxLon}, ${b.maxLat}, 4326)::geography`;
}

/**
 * A table `r(id)` of the asset seqs whose indexed position may lie in the box,
 * to read assets from in the index's order (SQLite streams its R*Tree, so a
 * LIMIT stops early); undefined where the store needs none (PostgreSQL's
 * planner walks its GiST index itself; ordering by distance there would make
 * it weigh every match) or the box is too wide.
 */
export function spatialSource(dialect: Dialect, box: Box): AliasedRawBuilder<{ id: number }, 'r'> | undefined {
  if (dialect !== 'sqlite' || !indexable(box)) return undefined;
  return sql<{ id: number }>`(${sqlitePositionsInBox(box)})`.as('r');
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

/**
 * Twice what single precision's rounding can move a position in the R*Tree,
 * in radians: a rounded position this far inside or outside the circle is
 * inside or outside whatever its exact position. The R*Tree widens a point to
 * the floats around it, so the centre of its box is within half a unit of the
 * last place of each coordinate: 2^-18 degree of latitude up to 90 (0.42 m),
 * 2^-17 degree of longitude up to 180 (0.85 m at the equator), under 1 m in all.
 */
const ROUNDING_SLACK = 2 / EARTH_RADIUS_M;

/** Is the circle narrow enough for an index of positions to help? */
export function indexableCircle(circle: Circle): boolean {
  return indexable(circleBox(circle));
}

/** What sqliteCityAssetsInBox takes: a box, the limit. */
export type BoxWalkParameters = [minLon: number, maxLon: number, minLat: number, maxLat: number, limit: number];

/** What sqliteCityAssetSeqsInCircle takes: the circle's box, the box already walked, its centre's terms, three bounds, the limit. */
export type CircleWalkParameters = [
  minLon: number, maxLon: number, minLat: number, maxLat: number,
  walkedMinLon: number, walkedMaxLon: number, walkedMinLat: number, walkedMaxLat: number,
  phi: number, cosPhi: number, lambda: number, inside: number, nearEdge: number, exact: number, limit: number,
];

/** A box no position lies in. */
const NO_BOX: Box = { minLon: 1, maxLon: 0, minLat: 1, maxLat: 0 };

/** The parameters of sqliteCityAssetSeqsInCircle for a circle, the box already walked (if any) and a limit. */
export function circleWalkParameters(circle: Circle, walked: Box | undefined, limit: number): CircleWalkParameters {
  const box = circleBox(circle);
  const w = walked ?? NO_BOX;
  const { phi, cosPhi, lambda } = centreTerms(circle.centre) as { phi: number; cosPhi: number; lambda: number };
  return [
    box.minLon, box.maxLon, box.minLat, box.maxLat, w.minLon, w.maxLon, w.minLat, w.maxLat, phi, cosPhi, lambda,
    haversineBound(Math.max(0, circle.radius - ROUNDING_SLACK)), haversineBound(circle.radius + ROUNDING_SLACK), haversineBound(circle.radius), limit,
  ];
}

/**
 * SQLite: the seqs of the first `limit` live city assets whose rounded box in
 * the R*Tree (0600-city-positions) lies wholly inside the box, in the tree's
 * order. With the inner box of a circle (domain/geo.ts), they are inside the
 * circle with no distance computed: the tree alone answers.
 */
export function sqliteCityAssetsInBox(p: Readonly<BoxWalkParameters> | readonly unknown[]): RawBuilder<{ seq: number }> {
  const [minLon, maxLon, minLat, maxLat, limit] = p;
  return sql<{ seq: number }>`select r.id as seq from city_positions r
    where r.min_lon >= ${minLon} and r.max_lon <= ${maxLon} and r.min_lat >= ${minLat} and r.max_lat <= ${maxLat}
    limit ${limit}`;
}

/**
 * SQLite: the seqs of the first `limit` live city assets in the (indexable)
 * circle that sqliteCityAssetsInBox did not give for the box already walked,
 * in the order of their R*Tree, read from that tree alone (and, near the
 * circle's edge, the row's exact position). Written with the parameters of
 * circleWalkParameters (values, or the markers of a prepared query), so that
 * its text never changes.
 */
export function sqliteCityAssetSeqsInCircle(p: Readonly<CircleWalkParameters> | readonly unknown[], haversine: HaversineSql): RawBuilder<{ seq: number }> {
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

/** A walk of the index of live city positions: a circle, how many seqs (in the index's order), and the places (from, to] whose rows come too. */
export interface CityPageScan {
  circle: Circle;
  limit: number;
  from: number;
  to: number;
}

/**
 * PostgreSQL: for each (indexable) circle, how many live city assets `walked`
 * its index (0600-city-positions, SP-GiST since 0800) holds, up to `limit`,
 * counted from that index alone, and the rows of those at places (from, to]
 * of the index's order, each with its place `n` (from 1); when no row falls in
 * those places, one row with the count alone (no seq). `i` is the scan's place
 * in `scans`. One statement for the searches of the requests that arrive
 * together: the walk and the page's rows were two round trips each.
 */
export function postgresCityPagesInCircles<Row>(scans: readonly CityPageScan[], haversine: HaversineSql, columns: readonly string[]): RawBuilder<Row> {
  const circles = scans.map(({ circle, limit, from, to }, i) => {
    const box = circleBox(circle);
    const { phi, cosPhi, lambda } = centreTerms(circle.centre);
    return {
      i, min_lon: box.minLon - BOX_SLACK, min_lat: box.minLat - BOX_SLACK, max_lon: box.maxLon + BOX_SLACK, max_lat: box.maxLat + BOX_SLACK,
      phi, cos_phi: cosPhi, lambda, bound: haversineBound(circle.radius), lim: limit, page_from: from, page_to: to,
    };
  });
  const centre = { phi: sql.ref<number>('q.phi'), cosPhi: sql.ref<number>('q.cos_phi'), lambda: sql.ref<number>('q.lambda') };
  const selected = sql.join(columns.map((c) => sql.ref(`a.${c}`)));
  // The conditions repeat the index's own predicate, so that the planner can prove the index holds every match.
  // Off the page the seq looked up is null: the lookup ends at once, where a condition on `n` beside it was checked only after it.
  // The circles come as one JSON document, whose number of rows the planner does not guess from the value: the plan made once serves them all.
  return sql<Row>`select q.i, w.n, w.walked, ${selected}
    from json_to_recordset(${JSON.stringify(circles)}::json)
      as q(i int4, min_lon float8, min_lat float8, max_lon float8, max_lat float8, phi float8, cos_phi float8, lambda float8, bound float8, lim int4, page_from int4, page_to int4)
    cross join lateral (select m.seq, m.n, count(*) over () as walked from (select assets.seq, row_number() over () as n from assets
      where assets.deleted_at is null and assets.site <> ${sql.lit(EXPERIMENTERS_SITE)}
        and point(assets.longitude, assets.latitude) <@ box(point(q.min_lon, q.min_lat), point(q.max_lon, q.max_lat))
        and ${haversine(centre, sql.ref('assets.latitude'), sql.ref('assets.longitude'))} <= q.bound
      limit q.lim) m) w
    left join lateral (select ${sql.join(columns.map((c) => sql.ref(`assets.${c}`)))} from assets
      where assets.seq = case when w.n > q.page_from and w.n <= q.page_to then w.seq end and assets.deleted_at is null) a on true
    where a.seq is not null or w.n = 1`;
}

/** Values as listed() takes them in one parameter: SQLite reads a JSON array, PostgreSQL an array. */
export function listParameter<T extends number | string>(dialect: Dialect, values: readonly T[]): string | T[] {
  return dialect === 'postgres' ? [...values] : JSON.stringify(values);
}

/** The columns a list of values selects assets by, with the PostgreSQL type of its array. */
const LISTED_COLUMNS = { seq: 'int8', id: 'text' } as const;

/** Assets whose `column` is in `list` (listParameter: a value, or the marker of a prepared query), any order. */
export function listed(dialect: Dialect, column: keyof typeof LISTED_COLUMNS, list: unknown): RawBuilder<SqlBool> {
  const ref = sql.ref(`assets.${column}`);
  return dialect === 'postgres'
    ? sql<SqlBool>`${ref} = any(${list}::${sql.raw(LISTED_COLUMNS[column])}[])`
    : sql<SqlBool>`${ref} in (select value from json_each(${list}))`;
}

/**
 * The column `assets.<column>` as a filter term. With `useIndex` false, SQLite
 * is kept from answering the filter through that column's index (unary +), so
 * that it walks the index of the requested order instead and stops at the
 * page's end; PostgreSQL's planner weighs that with its own statistics.
 */
export function filterColumn(dialect: Dialect, column: string, useIndex: boolean): RawBuilder<unknown> {
  const ref = sql.ref(`assets.${column}`);
  return dialect === 'sqlite' && !useIndex ? sql`+${ref}` : sql`${ref}`;
}

/** `assets.id` starts with `prefix` (case-sensitive). */
export function idStartsWith(dialect: Dialect, prefix: string): RawBuilder<SqlBool> {
  if (dialect === 'postgres') return sql<SqlBool>`starts_with(assets.id, ${prefix})`;
  // SQLite compares text byte by byte, so the prefix is a range of the id index.
  const last = prefix.codePointAt(prefix.length - 1) ?? 0;
  const head = prefix.slice(0, prefix.length - (last > 0xffff ? 2 : 1));
  const exact = sql<SqlBool>`substr(assets.id, 1, ${[...prefix].length}) = ${prefix}`;
  if (last >= 0x10ffff) return exact;
  const upper = head + String.fromCodePoint(last + 1);
  return sql<SqlBool>`(assets.id >= ${prefix} and assets.id < ${upper} and ${exact})`;
}

/** A LIKE pattern (escape character `\`) that matches text containing `term`. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One of the asset's attribute names or metadata values, lower-cased, contains
 * `term` (lower case). A cheap test on the whole attribute text runs first, so
 * the JSON is only opened for rows that may match.
 */
export function attributeTextContains(dialect: Dialect, term: string): RawBuilder<SqlBool> {
  const pattern = containsPattern(term);
  // JSON text escapes quotes and backslashes: a term holding one cannot be tested on it.
  const raw = /["\\]/.test(term) ? sql`true` : sql`lower(assets.attrs) like ${pattern} escape '\\'`;
  if (dialect === 'postgres') {
    return sql<SqlBool>`(${raw} and exists (
      select 1 from jsonb_each(assets.attrs::jsonb) a
      where lower(a.key) like ${pattern} escape '\\'
         or (jsonb_typeof(a.value -> 'metadata') = 'object' and exists (
              select 1 from jsonb_each(a.value -> 'metadata') m
              where jsonb_typeof(m.value) = 'object' and lower(case when jsonb_typeof(m.value -> 'value') = 'null' then '' else coalesce(m.value ->> 'value', '') end) like ${pattern} escape '\\'))))`;
  }
  return sql<SqlBool>`(${raw} and exists (
    select 1 from json_each(assets.attrs) a
    where lower(a.key) like ${pattern} escape '\\'
       or (json_type(a.value, '$.metadata') = 'object' and exists (
            select 1 from json_each(a.value, '$.metadata') m
            where json_type(m.value) = 'object' and lower(case json_type(m.value, '$.value')
              when 'true' then 'true' when 'false' then 'false' when 'null' then '' else json_extract(m.value, '$.value') end) like ${pattern} escape '\\'))))`;
}

/**
 * A value that changes whenever anything is committed to the store, by any
 * connection or process: SQLite's data_version of the reading connection;
 * PostgreSQL's current snapshot (its running and next transaction ids), which
 * moves with every transaction that writes. Undefined where reads share the
 * writer's connection (an in-memory SQLite store), whose own commits
 * data_version does not show.
 */
export async function commitMarker(dialect: Dialect, reader: Kysely<any>, writer: Kysely<any>): Promise<string | undefined> {
  if (dialect === 'postgres') {
    const result = await sql<{ marker: string }>`select pg_current_snapshot()::text as marker`.execute(reader);
    return result.rows[0]?.marker;
  }
  if (reader === writer) return undefined;
  const result = await sql<{ data_version: number }>`pragma data_version`.execute(reader);
  return String(result.rows[0]?.data_version);
}
