import type DataLoader from 'dataloader';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { segmentsOfPrefix, type AssetSelection, type Ordering, type Page } from '../../domain/asset-listing.js';
import { circleBox, coversSphere, haversineBound, ringBox, ringEdges, type Box, type Circle, type Point, type Ring } from '../../domain/geo.js';
import type { GeoArea } from '../../domain/geo-query.js';
import { seesExperimentAssets, type VisibleAssets } from '../../domain/visible-assets.js';
import { EXPERIMENTERS_SITE } from '../../domain/visibility.js';
import type { AssetQueries } from '../ports.js';
import { PreparedQuery } from '../prepared-query.js';
import { readPrepared } from '../prepared-read.js';
import {
  readTogether, rowsBySeq, SUMMARY_COLUMNS, toSummary, type AssetDetail, type AssetQuery, type AssetSummary, type DetailRow, type SummaryRow,
} from '../shared/asset-rows.js';
import { centreTerms, containsPattern, haversineTermSql, indexableCircle } from '../shared/discovery-geometry.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';
import { mergedReadings } from './readings.js';

export type { AssetDetail, AssetSummary } from '../shared/asset-rows.js';

/**
 * The read side of assets for discovery: which assets a request means
 * (`AssetCriteria`), a page of them in a stable order, how many there are, a
 * random sample. Deleted assets never appear.
 */

/** Everything that narrows a listing; every part given must hold. */
export interface AssetCriteria {
  visible: VisibleAssets;
  selection?: AssetSelection;
  area?: GeoArea;
  /** Metadata search terms, lower case; every one must occur. */
  terms?: string[];
  /** Only this experimenter's assets. */
  experimenter?: string;
  /** Leave this asset out (nearby). */
  excludeId?: string;
}

/**
 * An order of listing: by a column; by distance from a point (nearest first);
 * or the spatial index's own order (geographic searches that ask for none: a
 * page then costs what it holds, however many assets the area holds).
 */
export type AssetOrder = Ordering | { nearestTo: Point } | { spatial: true };

type Eb = ExpressionBuilder<Database, 'assets'>;

/** The haversine term of the distance from `centre` to the asset. */
function haversineSql(centre: Point) {
  return haversineTermSql(centreTerms(centre), sql.ref('assets.latitude'), sql.ref('assets.longitude'));
}

function insideCircleSql(queries: AssetQueries, circle: Circle, prefiltered: boolean): Expression<SqlBool> | undefined {
  if (coversSphere(circle)) return undefined;
  const exact = sql<SqlBool>`${haversineSql(circle.centre)} <= ${haversineBound(circle.radius)}`;
  return prefiltered ? exact : sql<SqlBool>`(${queries.positionMayBeIn(circleBox(circle))} and ${exact})`;
}

/** Even-odd crossing count over the ring's edges, in SQL; the same arithmetic as domain/geo.ts. */
function insideRingSql(queries: AssetQueries, ring: Ring, prefiltered: boolean): Expression<SqlBool> {
  const crossings = ringEdges(ring).map((e) =>
    sql`(case when assets.latitude >= ${e.lowLat} and assets.latitude < ${e.highLat} and assets.longitude < (${e.dx} * (assets.latitude - ${e.yi})) / ${e.dy} + ${e.xi} then 1 else 0 end)`);
  if (crossings.length === 0) return sql<SqlBool>`false`;
  const exact = sql<SqlBool>`(${sql.join(crossings, sql` + `)}) % 2 = 1`;
  return prefiltered ? exact : sql<SqlBool>`(${queries.positionMayBeIn(ringBox(ring))} and ${exact})`;
}

function visibilityCondition(eb: Eb, visible: VisibleAssets): Expression<SqlBool> | undefined {
  if (visible.all) return undefined;
  const city = eb('assets.site', '<>', EXPERIMENTERS_SITE);
  if (!seesExperimentAssets(visible)) return city;
  const own: Expression<SqlBool>[] = [];
  if (visible.experimenter !== null) own.push(eb('assets.experimenter', '=', visible.experimenter));
  if (visible.experiments.length > 0) own.push(eb('assets.experiment', 'in', visible.experiments));
  return eb.or([city, eb.and([eb('assets.site', '=', EXPERIMENTERS_SITE), eb.or(own)])]);
}

function selectionConditions(eb: Eb, queries: AssetQueries, selection: AssetSelection, filterIndexes = true): Expression<SqlBool>[] {
  const out: Expression<SqlBool>[] = [];
  const f = selection.filters;
  // An empty list of alternatives (contradicting parameters) selects nothing.
  const oneOf = (column: 'site' | 'service' | 'provider' | 'grp' | 'type' | 'experiment', values: string[] | undefined) => {
    if (values) out.push(values.length === 0 ? sql<SqlBool>`false` : eb(queries.filterColumn(column, filterIndexes), 'in', values));
  };
  oneOf('site', f.site);
  oneOf('service', f.service);
  oneOf('provider', f.provider);
  oneOf('grp', f.group);
  oneOf('type', f.type);
  oneOf('experiment', f.experiment);
  if (selection.urnPrefix !== undefined) {
    // Whole segments of the prefix narrow the search through the site/service/provider index first.
    const seg = segmentsOfPrefix(selection.urnPrefix);
    if (seg.site !== undefined) out.push(eb('assets.site', '=', seg.site));
    if (seg.service !== undefined) out.push(eb('assets.service', '=', seg.service));
    if (seg.provider !== undefined) out.push(eb('assets.provider', '=', seg.provider));
    out.push(queries.idStartsWith(selection.urnPrefix));
  }
  if (selection.updatedSince !== undefined) out.push(eb('assets.last_reading_at', '>=', selection.updatedSince));
  return out;
}

function termCondition(eb: Eb, queries: AssetQueries, term: string): Expression<SqlBool> {
  const pattern = containsPattern(term);
  const like = (column: 'id' | 'type' | 'site') => sql<SqlBool>`lower(assets.${sql.ref(column)}) like ${pattern} escape '\\'`;
  return eb.or([like('id'), like('type'), like('site'), queries.attributeTextContains(term)]);
}

/**
 * `prefiltered`: the query reads from the spatial index (spatialSource), which
 * already holds the area's box. `filterIndexes` false: filters must not steer
 * the store away from the order's index (see listingPlan).
 */
function conditions(eb: Eb, queries: AssetQueries, criteria: AssetCriteria, prefiltered = false, filterIndexes = true): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [eb('assets.deleted_at', 'is', null)];
  const visibility = visibilityCondition(eb, criteria.visible);
  if (visibility) all.push(visibility);
  if (criteria.selection) all.push(...selectionConditions(eb, queries, criteria.selection, filterIndexes));
  if (criteria.experimenter !== undefined) all.push(eb('assets.experimenter', '=', criteria.experimenter));
  if (criteria.excludeId !== undefined) all.push(eb('assets.id', '<>', criteria.excludeId));
  const area = criteria.area;
  if (area?.city !== undefined) all.push(eb('assets.site', '=', area.city));
  if (area?.circle) {
    const inside = insideCircleSql(queries, area.circle, prefiltered);
    if (inside) all.push(inside);
  }
  if (area?.ring) all.push(insideRingSql(queries, area.ring, prefiltered));
  for (const term of criteria.terms ?? []) all.push(termCondition(eb, queries, term));
  return eb.and(all);
}

const NULLABLE_SORTS = new Set(['service', 'provider']);

function ordered(query: AssetQuery, order: AssetOrder): AssetQuery {
  // The index's own order: SQLite reads its R*Tree (spatialSource), PostgreSQL walks its GiST index.
  if ('spatial' in order) return query;
  if ('nearestTo' in order) return query.orderBy(haversineSql(order.nearestTo), 'asc').orderBy('assets.seq', 'asc');
  const { sort, order: dir } = order;
  // Ids are unique: the id index alone gives the order.
  if (sort === 'id') return query.orderBy('assets.id', dir);
  const column = `assets.${sort}` as const;
  // NULLs first when ascending, last when descending, in both stores alike.
  const q = NULLABLE_SORTS.has(sort)
    ? query.orderBy(column, (ob) => (dir === 'asc' ? ob.asc().nullsFirst() : ob.desc().nullsLast()))
    : query.orderBy(column, dir);
  // The seq breaks ties, so that pages never overlap or skip.
  return q.orderBy('assets.seq', dir);
}

/** The box of the area's index prefilter: the circle's, else the polygon's. */
function areaBox(criteria: AssetCriteria): Box | undefined {
  const area = criteria.area;
  if (area?.circle && !coversSphere(area.circle)) return circleBox(area.circle);
  if (area?.ring) return ringBox(area.ring);
  return undefined;
}

/**
 * The assets the criteria select. With `spatial`, read in the spatial index's
 * order where the store can stream it, so that a LIMIT stops early.
 */
function baseQuery(store: Store, criteria: AssetCriteria, withAttributes: boolean, spatial = false, filterIndexes = true): AssetQuery {
  const box = spatial ? areaBox(criteria) : undefined;
  const source = box && store.dialect.assetQueries.spatialSource(box);
  let q: AssetQuery = source
    ? (store.read.selectFrom(source).crossJoin('assets').whereRef('assets.seq', '=', 'r.id' as any) as unknown as AssetQuery)
    : store.read.selectFrom('assets');
  q = q.select(SUMMARY_COLUMNS);
  if (withAttributes) q = q.select('assets.attrs');
  return q.where((eb) => conditions(eb, store.dialect.assetQueries, criteria, source !== undefined, filterIndexes));
}

const isSpatial = (order: AssetOrder) => 'spatial' in order;

/** Orders an index gives directly (assets_last_reading, the id key). */
const INDEXED_ORDERS = new Set(['last_reading_at', 'id']);
/** Below this many selected assets, reading them all through a filter's index and sorting is cheaper than walking the order's index. */
const SMALL_SELECTION = 5000;

/**
 * Should filters on site, service, provider or type use their indexes? Not
 * when the order has an index of its own and the counters say the filters
 * keep many assets: walking the order's index then finds a page within a few
 * thousand rows, where the filter's index would read and sort all of them.
 */
async function useFilterIndexes(store: Store, criteria: AssetCriteria, order: AssetOrder): Promise<boolean> {
  if (!('sort' in order) || !INDEXED_ORDERS.has(order.sort) || !countedByCounters(criteria)) return true;
  const f = criteria.selection?.filters ?? {};
  if (!f.site && !f.service && !f.provider && !f.type) return true;
  return (await countFromCounters(store, criteria)) <= SMALL_SELECTION;
}

/** One page of the assets the criteria select, in the given order. */
export async function listAssets(store: Store, criteria: AssetCriteria, order: AssetOrder, page: Page): Promise<AssetSummary[]> {
  const filterIndexes = await useFilterIndexes(store, criteria, order);
  const rows = await ordered(baseQuery(store, criteria, false, isSpatial(order), filterIndexes), order).limit(page.limit).offset(page.offset).execute();
  return (rows as SummaryRow[]).map(toSummary);
}

/** As listAssets, with each asset's attributes. */
export async function listAssetDetails(store: Store, criteria: AssetCriteria, order: AssetOrder, page: Page): Promise<AssetDetail[]> {
  const filterIndexes = await useFilterIndexes(store, criteria, order);
  const rows = await ordered(baseQuery(store, criteria, true, isSpatial(order), filterIndexes), order).limit(page.limit).offset(page.offset).execute();
  return (rows as DetailRow[]).map((r) => ({ ...toSummary(r), attrs: r.attrs }));
}

/**
 * Can the asset counters answer the count? They hold assets per site, service,
 * provider and type, so only filters on those qualify.
 */
export function countedByCounters(criteria: AssetCriteria): boolean {
  const s = criteria.selection;
  const a = criteria.area;
  return (s === undefined || (s.urnPrefix === undefined && s.updatedSince === undefined
      && s.filters.group === undefined && s.filters.experiment === undefined))
    && (a === undefined || (a.circle === undefined && a.ring === undefined))
    && (criteria.terms === undefined || criteria.terms.length === 0)
    && criteria.experimenter === undefined && criteria.excludeId === undefined;
}

async function countFromCounters(store: Store, criteria: AssetCriteria): Promise<number> {
  const f = criteria.selection?.filters ?? {};
  const city = criteria.area?.city;
  let q = store.read.selectFrom('asset_counts').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('assets'), eb.lit(0)).as('n'));
  for (const column of ['site', 'service', 'provider', 'type'] as const) {
    const values = f[column];
    if (values) q = values.length === 0 ? q.where(sql<SqlBool>`false`) : q.where(column, 'in', values);
  }
  if (city !== undefined) q = q.where('site', '=', city);
  // Experiment assets are counted apart: only some of them are visible.
  if (!criteria.visible.all) q = q.where('site', '<>', EXPERIMENTERS_SITE);
  const row = await q.executeTakeFirst();
  let total = Number(row?.n ?? 0);
  if (!criteria.visible.all && seesExperimentAssets(criteria.visible)) {
    const own = await store.read.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => conditions(eb, store.dialect.assetQueries, criteria))
      .where('assets.site', '=', EXPERIMENTERS_SITE)
      .executeTakeFirst();
    total += Number(own?.n ?? 0);
  }
  return total;
}

/**
 * Can the index of live city positions count the matches alone? It holds
 * what a caller who sees only city assets may see, so a circle and nothing
 * else qualifies: the map's question of an area.
 */
export function countedByPositions(criteria: AssetCriteria): boolean {
  const { area, selection: s } = criteria;
  return area?.circle !== undefined && area.ring === undefined && area.city === undefined && !coversSphere(area.circle)
    && (s === undefined || (s.urnPrefix === undefined && s.updatedSince === undefined && Object.values(s.filters).every((v) => v === undefined)))
    && (criteria.terms === undefined || criteria.terms.length === 0)
    && criteria.experimenter === undefined && criteria.excludeId === undefined
    && !seesExperimentAssets(criteria.visible);
}

/** The circle the index of live city positions answers for by itself (countedByPositions), if any. */
function indexedCircle(criteria: AssetCriteria): Circle | undefined {
  const circle = criteria.area?.circle;
  return circle && countedByPositions(criteria) && indexableCircle(circle) ? circle : undefined;
}

/**
 * The page (places offset+1 to offset+limit) of the first `reach` assets in
 * the circle, in the order of the index of live city positions, and how many
 * of those `reach` there are: the index alone decides which assets, and only
 * the page's own rows are read.
 */
function cityPage(store: Store, circle: Circle, reach: number, page: Page) {
  return store.dialect.assetQueries.cityPage(store, circle, reach, page.offset, page.offset + page.limit);
}

/**
 * A page of the assets the criteria select in the order of the index of live
 * city positions, and how many there are when that index holds at most `cap`
 * of them (or the page reaches their end): the index alone decides which
 * assets, and only the page's own rows are read. Undefined when that index
 * cannot answer.
 */
export async function pageOfCityAssets(store: Store, criteria: AssetCriteria, page: Page, cap: number): Promise<{ items: AssetSummary[]; total: number | undefined } | undefined> {
  const circle = indexedCircle(criteria);
  if (!circle) return undefined;
  const reach = Math.max(page.offset + page.limit, cap + 1);
  const { walked, rows } = await cityPage(store, circle, reach, page);
  return { items: rows.map(toSummary), total: walked < reach ? walked : undefined };
}

/**
 * How many assets the criteria select (the counters answer when they can,
 * without a scan). With `cap`, counting stops past `cap` matches and the
 * answer is undefined: the exact total would cost a read of every match.
 */
export async function countAssets(store: Store, criteria: AssetCriteria, cap?: number): Promise<number | undefined> {
  if (countedByCounters(criteria)) return countFromCounters(store, criteria);
  if (cap !== undefined) {
    const circle = indexedCircle(criteria);
    if (circle) {
      const { walked } = await cityPage(store, circle, cap + 1, { offset: 0, limit: 0 });
      return walked > cap ? undefined : walked;
    }
    const matches = baseQuery(store, criteria, false, true).clearSelect().select(sql<number>`1`.as('one')).limit(cap + 1);
    const row = await store.read.selectFrom(matches.as('m')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
    const n = Number(row?.n ?? 0);
    return n > cap ? undefined : n;
  }
  const row = await store.read.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n'))
    .where((eb) => conditions(eb, store.dialect.assetQueries, criteria))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

const shuffle = <T>(items: T[], random: () => number): T[] => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
};

/**
 * `n` assets drawn uniformly at random among those the criteria select
 * (`total` of them). Where they are dense among all seqs, random seqs are
 * probed through the primary key (every selected asset is equally likely to be
 * hit); otherwise the store shuffles the selection itself.
 */
export async function sampleAssets(store: Store, criteria: AssetCriteria, n: number, total: number, random: () => number = Math.random): Promise<AssetSummary[]> {
  if (total <= n) {
    const all = await listAssets(store, criteria, { sort: 'id', order: 'asc' }, { limit: n, offset: 0 });
    return shuffle(all, random);
  }
  const bounds = await store.read.selectFrom('assets')
    .select((eb) => [eb.fn.min<number>('seq').as('lo'), eb.fn.max<number>('seq').as('hi')]).executeTakeFirst();
  const lo = Number(bounds?.lo ?? 0);
  const span = Number(bounds?.hi ?? 0) - lo + 1;
  const picked = new Map<number, AssetSummary>();
  if (total / span >= 0.05) {
    for (let round = 0; round < 4 && picked.size < n; round++) {
      const wanted = Math.min(span, Math.ceil(((n - picked.size) * span) / total * 1.5) + 16, 4000);
      const probes = new Set<number>();
      while (probes.size < wanted) probes.add(lo + Math.floor(random() * span));
      const rows = await baseQuery(store, criteria, false).where('assets.seq', 'in', [...probes]).execute();
      for (const r of shuffle(rows as SummaryRow[], random)) {
        if (picked.size >= n) break;
        picked.set(Number(r.seq), toSummary(r));
      }
    }
  }
  if (picked.size < n) {
    const rows = await baseQuery(store, criteria, false).orderBy(sql`random()`).limit(n + picked.size).execute();
    for (const r of rows as SummaryRow[]) {
      if (picked.size >= n) break;
      picked.set(Number(r.seq), toSummary(r));
    }
  }
  return shuffle([...picked.values()], random);
}

/** Live assets by a list of ids (listParameter), any order. */
const ASSET_DETAILS = new PreparedQuery<[ids: string | readonly string[]], DetailRow>(1, (db, [ids], dialect) =>
  db.selectFrom('assets').select(SUMMARY_COLUMNS).select('assets.attrs').where(dialect.assetQueries.listed('id', ids)).where('assets.deleted_at', 'is', null));

const detailsById = new WeakMap<Store, DataLoader<string, DetailRow | undefined>>();

/** A live asset by id, with its attributes (visibility is the caller's to judge). */
export async function findAssetDetail(store: Store, id: string): Promise<AssetDetail | undefined> {
  const row = await readTogether(detailsById, store, async (ids) => new Map(
    (await readPrepared(store, ASSET_DETAILS, [store.dialect.assetQueries.listParameter(ids)])).map((r) => [r.id, r]),
  )).load(id);
  return row && { ...toSummary(row), attrs: row.attrs };
}

export interface RecentReading {
  name: string;
  type: string;
  value: string;
  receivedAt: number;
}

/** The asset's readings, newest first. */
export async function recentReadings(store: Store, seq: number, page: Page): Promise<RecentReading[]> {
  const rows = await mergedReadings(store, { assetSeq: seq, range: undefined }, 'desc', page);
  return rows.map((r) => ({ name: r.attrName, type: r.attrType, value: r.attrValue, receivedAt: r.recvTime }));
}

/** Live assets by seq, with their attributes, in the order of `seqs`. */
export async function assetDetailsBySeq(store: Store, seqs: number[]): Promise<AssetDetail[]> {
  return (await rowsBySeq(store, seqs, true)).map((r) => ({ ...toSummary(r), attrs: r.attrs }));
}
