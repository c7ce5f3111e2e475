import DataLoader from 'dataloader';
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { circleBox, haversineBound, type Box, type Circle } from '../../domain/geo.js';
import { EXPERIMENTERS_SITE } from '../../domain/urn.js';
import type { AssetQueries, CityPage, Executor, StoreReader } from '../ports.js';
import { readTogether, SUMMARY_COLUMN_NAMES, type SummaryRow } from '../shared/asset-rows.js';
import { BOX_SLACK, centreTerms, containsPattern, haversineTermSql, indexable, rawAttributeTextContains, type HaversineSql } from '../shared/discovery-geometry.js';

/**
 * PostgreSQL's SQL of discovery: positions as geography (GiST) and as points
 * (the SP-GiST index of live city positions), lists of values as arrays, jsonb.
 */

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

/** A walk of the index of live city positions: a circle, how many seqs (in the index's order), and the places (from, to] whose rows come too. */
interface CityPageScan {
  circle: Circle;
  limit: number;
  from: number;
  to: number;
}

/**
 * For each (indexable) circle, how many live city assets `walked` its index
 * (0600-city-positions, SP-GiST since 0800) holds, up to `limit`, counted from
 * that index alone, and the rows of those at places (from, to] of the index's
 * order, each with its place `n` (from 1); when no row falls in those places,
 * one row with the count alone (no seq). `i` is the scan's place in `scans`.
 * One statement for the searches of the requests that arrive together: the
 * walk and the page's rows were two round trips each.
 */
function cityPagesInCircles<Row>(scans: readonly CityPageScan[], haversine: HaversineSql, columns: readonly string[]): RawBuilder<Row> {
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

type CityPageRow = { i: number; n: number | string; walked: number | string } & { [K in keyof SummaryRow]: SummaryRow[K] | null };
const cityPages = new WeakMap<StoreReader, DataLoader<CityPageScan, CityPage | undefined>>();

async function cityPagesTogether(store: StoreReader, scans: readonly CityPageScan[]): Promise<Map<CityPageScan, CityPage>> {
  const rows = (await cityPagesInCircles<CityPageRow>(scans, haversineTermSql, SUMMARY_COLUMN_NAMES).execute(store.read)).rows
    .sort((a, b) => a.i - b.i || Number(a.n) - Number(b.n));
  const out = new Map<CityPageScan, CityPage>(scans.map((scan) => [scan, { walked: 0, rows: [] }]));
  for (const r of rows) {
    const page = out.get(scans[r.i] as CityPageScan);
    if (!page) continue;
    page.walked = Number(r.walked);
    if (r.seq !== null) page.rows.push(r as SummaryRow);
  }
  return out;
}

/** The PostgreSQL type of the array a list of values selects assets by. */
const LISTED_COLUMNS = { seq: 'int8', id: 'text' } as const;

export const postgresAssetQueries: AssetQueries = {
  positionMayBeIn(box) {
    if (!indexable(box)) return sql<SqlBool>`true`;
    const b = geodesicBox(box);
    return sql<SqlBool>`assets.geog && ST_MakeEnvelope(${b.minLon}, ${b.minLat}, ${b.maxLon}, ${b.maxLat}, 4326)::geography`;
  },
  spatialSource() {
    // The planner walks its GiST index itself; ordering by distance would make it weigh every match.
    return undefined;
  },
  filterColumn(column) {
    // The planner weighs a filter's index against the order's with its own statistics.
    return sql`${sql.ref(`assets.${column}`)}`;
  },
  idStartsWith(prefix) {
    return sql<SqlBool>`starts_with(assets.id, ${prefix})`;
  },
  attributeTextContains(term) {
    const pattern = containsPattern(term);
    return sql<SqlBool>`(${rawAttributeTextContains(pattern, term)} and exists (
      select 1 from jsonb_each(assets.attrs::jsonb) a
      where lower(a.key) like ${pattern} escape '\\'
         or (jsonb_typeof(a.value -> 'metadata') = 'object' and exists (
              select 1 from jsonb_each(a.value -> 'metadata') m
              where jsonb_typeof(m.value) = 'object' and lower(case when jsonb_typeof(m.value -> 'value') = 'null' then '' else coalesce(m.value ->> 'value', '') end) like ${pattern} escape '\\'))))`;
  },
  listParameter(values) {
    return [...values];
  },
  listed(column, list) {
    return sql<SqlBool>`${sql.ref(`assets.${column}`)} = any(${list}::${sql.raw(LISTED_COLUMNS[column])}[])`;
  },
  seqPage(seqs, limit, offset) {
    // The seqs come as one array, looked up in the seq index in its order: no join, no sort. Limit and
    // offset are subqueries, whose values no plan looks at: PostgreSQL's plan for a prepared page then
    // costs the same whatever they are, and it keeps the plan made once instead of planning every run
    // (the plan of a page's shape is the same for any value).
    const page = seqs.limit(sql<number>`(select ${limit}::int8)`).offset(sql<number>`(select ${offset}::int8)`);
    // A subquery goes into SQL in parentheses of its own: array(select …).
    return sql<SqlBool>`assets.seq = any(array${page})`;
  },
  async cityPage(store, circle, limit, from, to) {
    const page = await readTogether(cityPages, store, (scans) => cityPagesTogether(store, scans)).load({ circle, limit, from, to });
    return page ?? { walked: 0, rows: [] };
  },
  async seqsInBox(db: Executor, box) {
    const result = await sql<{ seq: number }>`select seq from assets where geog && ST_MakeEnvelope(${box.minLon}, ${box.minLat}, ${box.maxLon}, ${box.maxLat}, 4326)::geography`.execute(db);
    return result.rows.map((r) => r.seq);
  },
};
