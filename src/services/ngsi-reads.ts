import type { AppContext } from '../context.js';
import type { NgsiAttributes } from '../domain/asset-body.js';
import { AppError, badRequest } from '../domain/errors.js';
import { renderEntity, type AttributeSelection, type AttrsFormat } from '../domain/ngsi-entity-format.js';
import {
  filtersBeyondLists, geoPrefilterBox, matchesEntityQuery, matchesSelectors, needsAttributes, orderEntities, storeOrders, uniqueValues,
  type EntityCandidate,
} from '../domain/ngsi-entity-evaluation.js';
import type { EntityQuery } from '../domain/ngsi-entity-query.js';
import { assertOwnAssetId } from '../domain/urn.js';
import type { EntityRow, EntityRowFilter, EntityRowOrder } from '../storage/ports.js';
import type { SiteRecord } from '../storage/repositories/sites.js';

/**
 * NGSI v2 reads of a site's own assets (GET /v2/entities, its sub-resources,
 * /v2/types, POST /v2/op/query). Id and type lists, creation or builtin order,
 * paging and counts go to the store as SQL; an idPattern, typePattern, q,
 * georel or attribute order is evaluated here on the rows of a scan in
 * creation order, bounded in how many rows it may look at (geographical
 * queries first narrow that scan with the store's spatial index).
 */

/** How far a query evaluated in memory reads: rows per statement, and rows in all (past them the request is refused rather than answered in part). */
export interface ScanBounds {
  chunk: number;
  maxScanned: number;
}

export const SCAN_BOUNDS: ScanBounds = { chunk: 1000, maxScanned: 100_000 };

export interface EntityListing {
  /** The JSON array of the page. */
  json: string;
  /** All matching entities, when the count was asked for. */
  total?: number | undefined;
}

const rowFilter = (site: SiteRecord, query: EntityQuery): EntityRowFilter => ({
  site: site.id,
  lists: query.selectors.map((s) => ({ ids: s.ids, types: s.types })),
  box: geoPrefilterBox(query.geo),
});

const COLUMN_OF = { id: 'id', type: 'type', dateCreated: 'created', dateModified: 'modified' } as const;

function storeOrder(query: EntityQuery): EntityRowOrder {
  return query.orderBy.flatMap((k) => (k.by === 'builtin' ? [{ column: COLUMN_OF[k.name], descending: k.descending }] : []));
}

const parseAttributes = (row: EntityRow): NgsiAttributes => JSON.parse(row.attrs) as NgsiAttributes;

/** The JSON text of one entity in the query's format. */
export function entityJson(row: EntityRow, format: AttrsFormat, unique: boolean, selection: AttributeSelection): string {
  if (format === 'normalized' && selection.attrs === undefined && selection.exceptAttrs === undefined) {
    // The stored attributes are the normalized form already: no need to parse and write them again.
    const head = `{"id":${JSON.stringify(row.id)},"type":${JSON.stringify(row.type)}`;
    return row.attrs === '{}' ? `${head}}` : `${head},${row.attrs.slice(1)}`;
  }
  const rendered = renderEntity({ id: row.id, type: row.type, attributes: parseAttributes(row) }, format, selection);
  return JSON.stringify(unique && Array.isArray(rendered) ? uniqueValues(rendered) : rendered);
}

function pageJson(rows: readonly EntityRow[], query: EntityQuery): string {
  const selection = { attrs: query.attrs };
  return `[${rows.map((row) => entityJson(row, query.format, query.unique, selection)).join(',')}]`;
}

/** What an in-memory order needs of an entity: its builtins and the attributes the keys name. */
function orderCandidate(row: EntityRow, attributes: NgsiAttributes, query: EntityQuery): EntityCandidate & { row: EntityRow } {
  const kept: NgsiAttributes = Object.create(null) as NgsiAttributes;
  const names = [...query.orderBy.flatMap((k) => (k.by === 'attribute' ? [k.name] : [])), 'location', 'position'];
  for (const name of names) if (Object.hasOwn(attributes, name)) kept[name] = attributes[name] as NgsiAttributes[string];
  return { id: row.id, type: row.type, createdAt: row.createdAt, modifiedAt: row.modifiedAt, attributes: kept, row };
}

const tooWide = (bounds: ScanBounds): AppError => badRequest(
  `Invalid query: it would evaluate more than ${bounds.maxScanned} entities one by one (idPattern, typePattern, q, georel or an attribute in orderBy); narrow it with id, type or a georel near/coveredBy`,
);

/** The page (and count) of a query evaluated on a bounded scan. */
async function scanned(ctx: AppContext, filter: EntityRowFilter, query: EntityQuery, bounds: ScanBounds): Promise<{ rows: EntityRow[]; total: number }> {
  const queries = ctx.store.dialect.entityQueries;
  const inMemoryOrder = query.orderBy.length > 0;
  const wanted = query.offset + query.limit;
  // Creation order is the scan's own: a page is done once it is full, unless the total is asked for.
  const readAll = inMemoryOrder || query.count;
  const page: EntityRow[] = [];
  const ordered: Array<EntityCandidate & { row: EntityRow }> = [];
  let total = 0;
  let looked = 0;
  let after = 0;
  for (;;) {
    // One row more than the bound leaves room for tells whether the bound would be passed.
    const room = bounds.maxScanned - looked;
    const asked = Math.min(bounds.chunk, room + 1);
    const rows = await queries.scan(ctx.store, filter, after, asked);
    for (const row of rows.slice(0, room)) {
      looked++;
      if (!matchesSelectors(query, row.id, row.type)) continue;
      const attributes = needsAttributes(query) ? parseAttributes(row) : {};
      if (!matchesEntityQuery(query, { id: row.id, type: row.type, createdAt: row.createdAt, modifiedAt: row.modifiedAt, attributes })) continue;
      total++;
      if (inMemoryOrder) ordered.push(orderCandidate(row, attributes, query));
      else if (total > query.offset && page.length < query.limit) page.push(row);
    }
    if (!readAll && total >= wanted) break;
    if (rows.length > room) throw tooWide(bounds);
    if (rows.length < asked) break;
    after = (rows[rows.length - 1] as EntityRow).seq;
  }
  if (!inMemoryOrder) return { rows: page, total };
  return { rows: orderEntities(query, ordered).slice(query.offset, wanted).map((c) => c.row), total };
}

/** GET /v2/entities and POST /v2/op/query over the site's live assets. */
export async function listEntities(ctx: AppContext, site: SiteRecord, query: EntityQuery, bounds: ScanBounds = SCAN_BOUNDS): Promise<EntityListing> {
  const queries = ctx.store.dialect.entityQueries;
  const filter = rowFilter(site, query);
  if (!filtersBeyondLists(query) && storeOrders(query)) {
    const [rows, total] = await Promise.all([
      queries.page(ctx.store, filter, storeOrder(query), query.limit, query.offset),
      query.count ? queries.count(ctx.store, filter) : Promise.resolve(undefined),
    ]);
    return { json: pageJson(rows, query), total };
  }
  const { rows, total } = await scanned(ctx, filter, query, bounds);
  return { json: pageJson(rows, query), total: query.count ? total : undefined };
}

/**
 * One of the site's live assets; a type that differs is not found. Another
 * site's id is refused before any look-up, as by every federation route, so
 * the answer never tells whether it exists.
 */
export async function findEntity(ctx: AppContext, site: SiteRecord, id: string, type: string | undefined): Promise<EntityRow> {
  assertOwnAssetId(id, site.id);
  const rows = await ctx.store.dialect.entityQueries.page(ctx.store, { site: site.id, lists: [{ ids: [id], types: type === undefined ? undefined : [type] }] }, [], 1, 0);
  const row = rows[0];
  if (!row) throw new AppError('ASSET_NOT_FOUND');
  return row;
}

/** The entity's attributes, parsed. */
export const attributesOf = parseAttributes;

export interface TypeInfo {
  type: string;
  attrs: Record<string, { types: string[] }>;
  count: number;
}

/** The site's entity types in name order, a page of them, with their attributes and counts. */
export async function listTypes(ctx: AppContext, site: SiteRecord, paging: { limit: number; offset: number }, attributeDetail: boolean): Promise<{ types: TypeInfo[]; total: number }> {
  const queries = ctx.store.dialect.entityQueries;
  const counts = await queries.typeCounts(ctx.store, site.id);
  const page = counts.slice(paging.offset, paging.offset + paging.limit);
  return { types: await withAttributes(ctx, site, page, attributeDetail), total: counts.length };
}

/** One of the site's entity types; a type the site has no live entity of is not found. */
export async function getType(ctx: AppContext, site: SiteRecord, type: string, attributeDetail: boolean): Promise<TypeInfo> {
  const counts = await ctx.store.dialect.entityQueries.typeCounts(ctx.store, site.id, [type]);
  if (counts.length === 0) throw new AppError('NOT_FOUND', 'Entity type not found');
  return (await withAttributes(ctx, site, counts, attributeDetail))[0] as TypeInfo;
}

async function withAttributes(ctx: AppContext, site: SiteRecord, counts: ReadonlyArray<{ type: string; count: number }>, attributeDetail: boolean): Promise<TypeInfo[]> {
  const rows = await ctx.store.dialect.entityQueries.typeAttributes(ctx.store, site.id, counts.map((c) => c.type), attributeDetail);
  const byType = new Map<string, Record<string, { types: string[] }>>();
  for (const { type, name, attrType } of rows) {
    let attrs = byType.get(type);
    if (!attrs) byType.set(type, (attrs = Object.create(null) as Record<string, { types: string[] }>));
    const entry = (attrs[name] ??= { types: [] });
    if (attributeDetail && !entry.types.includes(attrType)) entry.types.push(attrType);
  }
  return counts.map((c) => ({ type: c.type, attrs: byType.get(c.type) ?? {}, count: c.count }));
}
