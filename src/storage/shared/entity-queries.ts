import { type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { PreparedQuery } from '../prepared-query.js';
import { readPrepared } from '../prepared-read.js';
import type { Database } from '../schema.js';
import type { EntityQueries, EntityRow, EntityRowFilter, EntityRowOrder, Executor, StoreReader } from '../ports.js';

/**
 * The SQL of NGSI v2 reads, which both stores run alike: a site's live assets
 * filtered by id and type lists and an index box, ordered by creation (seq) or
 * a builtin key, paged by limit and offset, counted. The dialects differ only
 * in the box prefilter (R*Tree or GiST) and in how a page's rows are found from
 * its seqs, which their AssetQueries give.
 */

type Builder = ExpressionBuilder<Database, 'assets'>;

const COLUMNS = ['seq', 'id', 'type', 'attrs', 'created_at', 'last_reading_at'] as const;
const ORDER_COLUMN = { id: 'id', type: 'type', created: 'seq', modified: 'last_reading_at' } as const;

function conditions(store: StoreReader, filter: EntityRowFilter) {
  return (eb: Builder): Expression<SqlBool> => {
    const all: Array<Expression<SqlBool>> = [eb('site', '=', filter.site), eb('deleted_at', 'is', null)];
    // A list without ids or types takes everything, and so does the whole disjunction.
    if (filter.lists.length > 0 && filter.lists.every((l) => l.ids !== undefined || l.types !== undefined)) {
      all.push(eb.or(filter.lists.map((l) => {
        const terms: Array<Expression<SqlBool>> = [];
        if (l.ids !== undefined) terms.push(l.ids.length === 1 ? eb('id', '=', l.ids[0] as string) : eb('id', 'in', [...l.ids]));
        if (l.types !== undefined) terms.push(l.types.length === 1 ? eb('type', '=', l.types[0] as string) : eb('type', 'in', [...l.types]));
        return eb.and(terms);
      })));
    }
    if (filter.box) all.push(store.dialect.assetQueries.positionMayBeIn(filter.box));
    return eb.and(all);
  };
}

interface RawRow {
  seq: number | string;
  id: string;
  type: string;
  attrs: string;
  created_at: number | string;
  last_reading_at: number | string;
}

const toRow = (r: RawRow): EntityRow => ({
  seq: Number(r.seq), id: r.id, type: r.type, attrs: r.attrs, createdAt: Number(r.created_at), modifiedAt: Number(r.last_reading_at),
});

// The shapes most reads take, compiled once: a site's page, a type's page, one entity. A page's
// seqs are read first, from the index of live assets by site (and type) alone, the rows it skips
// included; only its own rows are then read whole. Asked for whole rows at once, PostgreSQL
// prefers walking every asset in seq order, which grows with the offset.
const liveSeqs = (db: Executor, site: string) =>
  db.selectFrom('assets').select('seq').where('site', '=', site).where('deleted_at', 'is', null).orderBy('seq');
const PAGE_OF_SITE = new PreparedQuery<[site: string, limit: number, offset: number], RawRow>(3, (db, [site, limit, offset], dialect) =>
  db.selectFrom('assets').select([...COLUMNS]).where(dialect.assetQueries.seqPage(liveSeqs(db, site), limit, offset)).orderBy('seq'));
const PAGE_OF_TYPE = new PreparedQuery<[site: string, type: string, limit: number, offset: number], RawRow>(4, (db, [site, type, limit, offset], dialect) =>
  db.selectFrom('assets').select([...COLUMNS]).where(dialect.assetQueries.seqPage(liveSeqs(db, site).where('type', '=', type), limit, offset)).orderBy('seq'));
const ENTITY = new PreparedQuery<[site: string, id: string], RawRow>(2, (db, [site, id]) =>
  db.selectFrom('assets').select([...COLUMNS]).where('site', '=', site).where('deleted_at', 'is', null).where('id', '=', id));

/** The prepared query that answers a page, when the filter and order have one of its shapes. */
function preparedPage(store: StoreReader, filter: EntityRowFilter, order: EntityRowOrder, limit: number, offset: number): Promise<RawRow[]> | undefined {
  if (filter.box !== undefined || order.some((k) => k.column !== 'created' || k.descending)) return undefined;
  if (filter.lists.length === 0) return readPrepared(store, PAGE_OF_SITE, [filter.site, limit, offset]);
  if (filter.lists.length !== 1) return undefined;
  const { ids, types } = filter.lists[0] as EntityRowFilter['lists'][number];
  if (ids === undefined && types?.length === 1) return readPrepared(store, PAGE_OF_TYPE, [filter.site, types[0] as string, limit, offset]);
  if (ids?.length === 1 && types === undefined && offset === 0 && limit >= 1) return readPrepared(store, ENTITY, [filter.site, ids[0] as string]);
  return undefined;
}

/** Only type lists (or nothing) and no box: the live-asset counters answer without reading a row. */
const countersAnswer = (filter: EntityRowFilter): boolean =>
  filter.box === undefined && filter.lists.every((l) => l.ids === undefined && l.types !== undefined) && (filter.lists.length <= 1);

export const entityQueries: EntityQueries = {
  async page(store, filter, order, limit, offset) {
    const prepared = preparedPage(store, filter, order, limit, offset);
    if (prepared) return (await prepared).map(toRow);
    let query = store.read.selectFrom('assets').select([...COLUMNS]).where(conditions(store, filter));
    for (const key of order) query = query.orderBy(ORDER_COLUMN[key.column], key.descending ? 'desc' : 'asc');
    const last = order[order.length - 1];
    if (last?.column !== 'created') query = query.orderBy('seq', 'asc');
    const rows = await query.limit(limit).offset(offset).execute();
    return rows.map(toRow);
  },

  async count(store, filter) {
    if (countersAnswer(filter)) {
      let query = store.read.selectFrom('asset_counts').select((eb) => eb.fn.sum<number | string | null>('assets').as('n')).where('site', '=', filter.site);
      const types = filter.lists[0]?.types;
      if (types !== undefined) query = query.where('type', 'in', [...types]);
      const row = await query.executeTakeFirst();
      return Number(row?.n ?? 0);
    }
    const row = await store.read.selectFrom('assets').select((eb) => eb.fn.countAll<number | string>().as('n')).where(conditions(store, filter)).executeTakeFirst();
    return Number(row?.n ?? 0);
  },

  async scan(store, filter, afterSeq, chunk) {
    const rows = await store.read.selectFrom('assets').select([...COLUMNS])
      .where(conditions(store, filter)).where('seq', '>', afterSeq)
      .orderBy('seq', 'asc').limit(chunk).execute();
    return rows.map(toRow);
  },

  async typeCounts(store, site, types) {
    let query = store.read.selectFrom('asset_counts').select(['type', (eb) => eb.fn.sum<number | string>('assets').as('n')])
      .where('site', '=', site).groupBy('type').having((eb) => eb.fn.sum('assets'), '>', 0).orderBy('type');
    if (types !== undefined) query = query.where('type', 'in', [...types]);
    const rows = await query.execute();
    return rows.map((r) => ({ type: r.type, count: Number(r.n) }));
  },

  async typeAttributes(store, site, types, withTypes) {
    if (types.length === 0) return [];
    const base = store.read.selectFrom('assets')
      .innerJoin('asset_attributes', 'asset_attributes.asset_seq', 'assets.seq')
      .where('assets.site', '=', site).where('assets.deleted_at', 'is', null).where('assets.type', 'in', [...types]);
    if (!withTypes) {
      // Names alone are in the attribute table's key: its rows need not be read.
      const rows = await base.select(['assets.type as type', 'asset_attributes.name as name'])
        .groupBy(['assets.type', 'asset_attributes.name']).orderBy('assets.type').orderBy('asset_attributes.name').execute();
      return rows.map((r) => ({ ...r, attrType: '' }));
    }
    return base.select(['assets.type as type', 'asset_attributes.name as name', 'asset_attributes.type as attrType'])
      .groupBy(['assets.type', 'asset_attributes.name', 'asset_attributes.type'])
      .orderBy('assets.type').orderBy('asset_attributes.name').orderBy('asset_attributes.type')
      .execute();
  },
};

