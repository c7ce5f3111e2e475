import { sql, type AliasedSelectQueryBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { BucketStats } from '../../domain/aggregation.js';
import type { Selection, TimeIndex, TimeRange } from '../../domain/history-query.js';
import { rollupGranuleOf } from '../../domain/history-rollups.js';
import type { Executor, ReadingQueries } from '../ports.js';
import type { Database } from '../schema.js';
import { PreparedQuery } from '../prepared-query.js';
import { readPrepared } from '../prepared-read.js';
import { OFF_TIME_READING, ON_TIME_MS } from '../shared/off-time-readings.js';
import { storedValueOf, unpackReadings, type StoredReading } from '../shared/stored-readings.js';
import type { Store } from '../store.js';
import { aggregateFromRollups } from './reading-rollups.js';

/**
 * The read side of the history that federation records: one row per attribute
 * of every accepted create or update. Readings come back ascending by receive
 * time; readings received in the same millisecond keep the order they were
 * written in (seq), so that paging is stable.
 */

/** What the datasource needs of an asset: deleted ones included, since their history stays readable. */
export interface HistoryAsset {
  seq: number;
  id: string;
  type: string;
  site: string;
  experimenter: string | null;
  experiment: string | null;
}

export interface ReadingRecord {
  /** Epoch ms. */
  recvTime: number;
  /** The TimeInstant it was sent with, epoch ms: read only when the history is indexed by it. */
  observedTime?: number;
  attrName: string;
  attrType: string;
  attrValue: string;
}

export interface ReadingsFilter {
  assetSeq: number;
  /** One attribute, or every attribute of the asset. */
  attrName: string | undefined;
  range: TimeRange | undefined;
  /** What `range` bounds and readings are ordered by (default: receive time). */
  timeIndex?: TimeIndex | undefined;
}

/** The column of a time index. */
export const timeColumn = (index: TimeIndex | undefined): 'recv_time' | 'observed_time' => (index === 'observed' ? 'observed_time' : 'recv_time');

/** A reading's time on an index: what it is ordered and paged by. */
export const timeOn = (index: TimeIndex | undefined, r: { recvTime: number; observedTime?: number | undefined }): number =>
  (index === 'observed' ? r.observedTime as number : r.recvTime);

const HISTORY_COLUMNS = ['seq', 'id', 'type', 'site', 'experimenter', 'experiment'] as const;
const HISTORY_ASSET = new PreparedQuery<[id: string], HistoryAsset>(1, (db, [id]) =>
  db.selectFrom('assets').select(HISTORY_COLUMNS).where('id', '=', id));
const HISTORY_ASSET_RECORDING = new PreparedQuery<[id: string, name: string], HistoryAsset & { records: unknown }>(2, (db, [id, name]) =>
  db.selectFrom('assets').select(HISTORY_COLUMNS)
    .select((eb) => eb.exists(eb.selectFrom('asset_attributes').select('asset_attributes.name')
      .whereRef('asset_attributes.asset_seq', '=', 'assets.seq').where('asset_attributes.name', '=', name)).as('records'))
    .where('assets.id', '=', id));

/**
 * The asset, and whether the attribute `attr` is recorded for it (true when
 * none is named): one statement, since most history requests name one.
 */
export async function findHistoryAsset(store: Store, id: string, attr?: string): Promise<(HistoryAsset & { records: boolean }) | undefined> {
  if (attr === undefined) {
    const [row] = await readPrepared(store, HISTORY_ASSET, [id]);
    return row && { ...row, seq: Number(row.seq), records: true };
  }
  const [row] = await readPrepared(store, HISTORY_ASSET_RECORDING, [id, attr]);
  // SQLite answers `exists` with 0 or 1, PostgreSQL with a boolean.
  return row && { ...row, seq: Number(row.seq), records: Boolean(row.records) };
}

/** Names of the attributes recorded for the asset, in code-unit order (the same on every store and locale). */
export async function listRecordedAttributes(store: Store, assetSeq: number): Promise<string[]> {
  const rows = await store.read.selectFrom('asset_attributes').select('name').where('asset_seq', '=', assetSeq).execute();
  return rows.map((r) => r.name).sort();
}

/** Only the readings past `key` on `column`, in `direction` order (keyset paging). */
function pastKey<Q extends SelectQueryBuilder<Database, 'readings', object>>(q: Q, column: 'recv_time' | 'observed_time', key: ReadingKey, direction: 'asc' | 'desc'): Q {
  // Compared as a pair, the key is where the index walk starts: with `time > t or seq > s` each page walked from the time alone.
  return q.where((eb) => eb(eb.refTuple(column, 'seq'), direction === 'asc' ? '>' : '<', eb.tuple(key.time, key.seq))) as Q;
}

const OFF_TIME = sql<SqlBool>`${sql.raw(OFF_TIME_READING)}`;
/** Every column of a reading as queries read them. */
const READING_COLUMNS = ['asset_seq', 'name_id', 'recv_time', 'seq', 'observed_time', 'type_id', 'attr_value'] as const;
const ON_TIME = sql<SqlBool>`not ${sql.raw(OFF_TIME_READING)}`;
const FAR = Number.MAX_SAFE_INTEGER;

/** One attribute's readings by observation time: those in `range`, past `after` in `direction` order. */
interface ObservedWalk {
  assetSeq: number;
  nameId: number;
  range: TimeRange | undefined;
  direction: 'asc' | 'desc';
  after?: ReadingKey | undefined;
  /** Only the first `reach` readings in `direction` order are wanted: the on-time ones are then read within bounds. */
  reach?: number | undefined;
}

/**
 * The readings of an ObservedWalk, every column, unordered: the off-time ones
 * through their index by observation time, the others through the history's
 * receive-time order, since each was received within ON_TIME_MS of its
 * observation (../shared/off-time-readings.ts). When only the first K are
 * wanted, the on-time ones are read no further than 2 × ON_TIME_MS past the
 * K-th of them in receive order: K of them were observed by then, so none
 * received later can be among the first K observed.
 */
function byObservation(db: Executor, readings: ReadingQueries, w: ObservedWalk) {
  const asc = w.direction === 'asc';
  const observedIn = (q: SelectQueryBuilder<Database, 'readings', object>) => {
    const out = w.range ? q.where('observed_time', '>=', w.range.from).where('observed_time', '<=', w.range.to) : q;
    return w.after ? pastKey(out, 'observed_time', w.after, w.direction) : out;
  };
  // Only rows of the table are off time: a store that packs readings packs only those on time.
  const offTime = observedIn(db.selectFrom('readings').where('asset_seq', '=', w.assetSeq).where('name_id', '=', w.nameId).where(OFF_TIME));
  const lowest = Math.max(w.range ? w.range.from : -FAR, w.after && asc ? w.after.time : -FAR);
  const highest = Math.min(w.range ? w.range.to : FAR, w.after && !asc ? w.after.time : FAR);
  const received = lowest > -FAR || highest < FAR ? { from: lowest > -FAR ? lowest - ON_TIME_MS : -FAR, to: highest < FAR ? highest + ON_TIME_MS : FAR } : undefined;
  let onTime = observedIn(readings.series(db, { assetSeq: w.assetSeq, nameId: w.nameId, range: received }).where(ON_TIME));
  if (w.reach !== undefined && w.reach > 0) {
    const kth = onTime.select('recv_time').orderBy('recv_time', w.direction).orderBy('seq', w.direction).limit(1).offset(w.reach - 1);
    onTime = asc
      ? onTime.where('recv_time', '<=', sql<number>`coalesce((${kth}), ${sql.lit(FAR)}) + ${sql.lit(2 * ON_TIME_MS)}`)
      : onTime.where('recv_time', '>=', sql<number>`coalesce((${kth}), ${sql.lit(-FAR)}) - ${sql.lit(2 * ON_TIME_MS)}`);
  }
  // By name: the arms may come from tables whose columns lie in different orders.
  return offTime.select(READING_COLUMNS).unionAll(onTime.select(READING_COLUMNS));
}

/**
 * The selected readings, ascending by receive time. For one attribute the name
 * is not read back: every row would carry the same string, and materializing
 * strings is most of what reading a thousand rows costs.
 */
export async function findReadings(store: Store, filter: ReadingsFilter, selection: Selection): Promise<ReadingRecord[]> {
  const only = filter.attrName;
  if (only === undefined) {
    // The records keep the seq the merge ordered by: copying a thousand of them to drop it would cost more than it carries.
    return selection.kind === 'page'
      ? mergedReadings(store, filter, 'asc', selection)
      : (await mergedReadings(store, filter, 'desc', { limit: selection.count, offset: 0 })).reverse();
  }
  const nameId = await store.terms.idOf(only);
  if (filter.timeIndex === 'observed') {
    const observed = (direction: 'asc' | 'desc', reach: number) => store.read
      .selectFrom(byObservation(store.read, store.dialect.readings, { assetSeq: filter.assetSeq, nameId, range: filter.range, direction, reach }).as('r'))
      .select(['recv_time as recvTime', 'observed_time as observedTime', 'type_id as attrType', 'attr_value as attrValue'])
      .orderBy('observed_time', direction).orderBy('seq', direction);
    const rows = selection.kind === 'page'
      ? await observed('asc', selection.offset + selection.limit).limit(selection.limit).offset(selection.offset).execute()
      : (await observed('desc', selection.count).limit(selection.count).execute()).reverse();
    return named(store, rows, only);
  }
  // Rows come back in the record's shape, so that a thousand of them are not copied once more.
  const received = (direction: 'asc' | 'desc', reach: number) => store.dialect.readings
    .series(store.read, { assetSeq: filter.assetSeq, nameId, range: filter.range, direction, reach })
    .select(['recv_time as recvTime', 'type_id as attrType', 'attr_value as attrValue'])
    .orderBy('recv_time', direction).orderBy('seq', direction);
  const rows = selection.kind === 'page'
    ? await received('asc', selection.offset + selection.limit).limit(selection.limit).offset(selection.offset).execute()
    // The newest N come from the end of the index, then are turned back to ascending order.
    : (await received('desc', selection.count).limit(selection.count).execute()).reverse();
  return named(store, rows, only);
}

/** A reading as read: its attribute's type (and name, when several attributes are read) as numbers into reading_terms. */
type NumberedReading = Omit<ReadingRecord, 'attrName' | 'attrType'> & { attrType: number | string; attrName?: number | string };

/**
 * The readings with their terms in place of their numbers, in the same
 * objects; `only` names them all when one attribute was read.
 */
export async function named<R extends NumberedReading>(store: Store, rows: R[], only?: string): Promise<Array<R & ReadingRecord>> {
  const ids = new Set<number>();
  for (const r of rows) {
    ids.add(Number(r.attrType));
    if (only === undefined) ids.add(Number(r.attrName));
  }
  const term = await store.terms.namer(ids);
  for (const r of rows) {
    r.attrType = term(Number(r.attrType));
    r.attrName = only ?? term(Number(r.attrName));
  }
  return rows as Array<R & ReadingRecord>;
}

/** What locates a reading, read alike whether its value comes as given back or as stored. */
const KEY_COLUMNS = ['recv_time as recvTime', 'seq', 'name_id as attrName', 'type_id as attrType'] as const;
const RECEIVED_COLUMNS = [...KEY_COLUMNS, 'attr_value as attrValue'] as const;

/** Readings in the order of an index (its time, then seq), ascending or newest first. */
const inOrder = (index: TimeIndex | undefined, direction: 'asc' | 'desc') => {
  const sign = direction === 'asc' ? 1 : -1;
  return (a: { recvTime: number; observedTime?: number | undefined; seq: number }, b: typeof a): number =>
    sign * (timeOn(index, a) - timeOn(index, b) || a.seq - b.seq);
};

/** The readings in (receive time, seq) order of `direction`: as a packed page gives them, which is checked rather than assumed. */
function inPageOrder(rows: StoredReading[], direction: 'asc' | 'desc'): StoredReading[] {
  const before = inOrder('received', direction);
  for (let i = 1; i < rows.length; i++) if (before(rows[i - 1]!, rows[i]!) > 0) return rows.sort(before);
  return rows;
}

/** Readings read as stored (value, and observation time as an offset from the receive time), made whole in place. */
export function fromStored(rows: StoredReading[]): Array<StoredReading & { attrValue: string }> {
  for (const r of rows) {
    r.observedTime += r.recvTime;
    r.attrValue = storedValueOf(r.attrValue, r.observedTime);
  }
  return rows as Array<StoredReading & { attrValue: string }>;
}

/** The most per-attribute walks one statement merges (SQLite allows 500 arms in a compound select). */
const MERGED_WALKS = 64;

/** A place in merged readings: its time (of the chosen index) and seq, unique across the store. */
export interface ReadingKey {
  time: number;
  seq: number;
}

export interface MergedPage {
  limit: number;
  offset: number;
  /** Only the readings past this one, in the page's direction (keyset paging: a page costs the same anywhere in the history). */
  after?: ReadingKey | undefined;
}

export interface MergedFilter extends Omit<ReadingsFilter, 'attrName'> {
  /** The attributes merged (default: every attribute recorded for the asset). */
  names?: readonly string[] | undefined;
  /** Read the observation time even when the history is indexed by receive time. */
  withObservedTime?: boolean;
  /** A walk of much of the history (an export): read on the store's connection for such walks. */
  scan?: boolean;
}

/**
 * A page of the readings of every attribute of an asset, by receive time then
 * write order, ascending or newest first. Each attribute's readings are one
 * walk of readings_attr_history in that order; the walks are merged, so a
 * page reads at most as many rows per attribute as it shows and skips.
 * An asset with very many attributes is merged a group of walks at a time.
 */
export async function mergedReadings(
  store: Store, filter: MergedFilter, direction: 'asc' | 'desc', page: MergedPage,
): Promise<Array<ReadingRecord & { seq: number }>> {
  const { assetSeq, range, timeIndex, after } = { ...filter, after: page.after };
  const observed = timeIndex === 'observed';
  const order = observed ? 'observedTime' : 'recvTime';
  const names = filter.names ?? await listRecordedAttributes(store, assetSeq);
  if (names.length === 0 || page.limit === 0) return [];
  const reach = page.offset + page.limit;
  const groups = Array.from({ length: Math.ceil(names.length / MERGED_WALKS) }, (_, i) => names.slice(i * MERGED_WALKS, (i + 1) * MERGED_WALKS));
  const single = groups.length === 1;
  const { stored, packed } = store.dialect.readings;
  const db = filter.scan ? store.scan : store.read;
  const read = await Promise.all(groups.map(async (group) => {
    const ids = await store.terms.idsOf(group);
    // The group gives its first `reach` readings: each walk reads no further than those of the group's walks together.
    const reachOver = ids;
    const walks = ids.map((nameId) => {
      if (observed) {
        // Unordered as read (byObservation): every store sorts and stops it.
        const walk = db.selectFrom(byObservation(db, store.dialect.readings, { assetSeq, nameId, range, direction, after, reach }).as('r'))
          .select([...RECEIVED_COLUMNS, 'observed_time as observedTime']).orderBy('observed_time', direction).orderBy('seq', direction).limit(reach);
        return db.selectFrom(walk.as('walk')).selectAll();
      }
      const received = store.dialect.readings.series(db, { assetSeq, nameId, range, after, direction, reach, reachOver });
      const past = after ? pastKey(received, 'recv_time', after, direction) : received;
      // With the observation time, the value and the time come from the columns the store keeps (read back below).
      const plain = past.select(RECEIVED_COLUMNS);
      const walk = filter.withObservedTime
        ? past.select([...KEY_COLUMNS, stored.value.as('attrValue'), stored.observedOffset.as('observedTime')]) as unknown as typeof plain
        : plain;
      // A store that merges plain arms as they come from the index needs no stop; another would read and sort each arm whole.
      const stopped = store.dialect.readings.walksStopAtPage ? walk.orderBy('recv_time', direction).orderBy('seq', direction).limit(reach) : walk;
      return db.selectFrom(stopped.as('walk')).selectAll();
    });
    const merged = walks.slice(1).reduce((all, walk) => all.unionAll(walk), walks[0]!)
      .orderBy(sql.ref(order), direction).orderBy('seq', direction);
    const limited = single ? merged.limit(page.limit).offset(page.offset) : merged.limit(reach);
    if (!filter.withObservedTime || observed) return named(store, await limited.execute());
    const rows = packed
      ? inPageOrder(unpackReadings((await packed(limited).execute(db)).rows[0]?.packed ?? null), direction)
      : await limited.execute() as unknown as StoredReading[];
    return named(store, fromStored(rows));
  }));
  if (single) return read[0]!;
  return read.flat().sort(inOrder(timeIndex, direction)).slice(page.offset, reach);
}

/** The rows of `counted`, with the count of drops of expired history. */
const countWithDrops = (db: Executor, counted: AliasedSelectQueryBuilder<{ one: number }, 'm'>) => db.selectFrom(counted)
  .select((eb) => [eb.fn.countAll<number>().as('n'), eb.selectFrom('history_drops').select('drops').where('id', '=', 1).as('drops')]);

const COUNT_RANGE = new PreparedQuery<[assetSeq: number, nameId: number, from: number, to: number, limit: number], { n: number | string; drops: number | string | null }>(5,
  (db, [assetSeq, nameId, from, to, limit], dialect) =>
    countWithDrops(db, dialect.readings.series(db, { assetSeq, nameId, range: { from, to } }).select(sql<number>`1`.as('one')).limit(limit).as('m')));

/**
 * How many readings of one attribute's range there are, counted no further
 * than `cap` (a result of cap + 1 means more), and how many writes ever
 * dropped expired history (a range may lose readings as it gains others).
 * The count walks the history index alone.
 */
export async function countReadings(
  store: Store, filter: ReadingsFilter & { attrName: string; range: TimeRange }, cap: number,
): Promise<{ readings: number; drops: number }> {
  const { assetSeq, range } = filter;
  const nameId = await store.terms.idOf(filter.attrName);
  // By observation time, built each time: its bounds on receive time are computed from the range (byObservation).
  const [row] = filter.timeIndex === 'observed'
    ? await countWithDrops(store.read, store.read.selectFrom(byObservation(store.read, store.dialect.readings, { assetSeq, nameId, range, direction: 'asc' }).as('r'))
      .select(sql<number>`1`.as('one')).limit(cap + 1).as('m')).execute()
    : await readPrepared(store, COUNT_RANGE, [assetSeq, nameId, range.from, range.to, cap + 1]);
  return { readings: Number(row?.n ?? 0), drops: Number(row?.drops ?? 0) };
}

/** The largest LIMIT both stores accept: a subquery fence that limits nothing. */
const NO_LIMIT = '9223372036854775807';

/**
 * Buckets of one attribute's numeric readings, ascending by start, with the
 * count, sum, least and greatest of each (src/domain/aggregation.ts computes
 * every method from these); the page counts buckets. A period of whole hours
 * by receive time is read from the rollups (./reading-rollups.ts), which
 * outlive the raw readings; any other from the raw readings.
 */
export async function aggregateReadings(
  store: Store, filter: ReadingsFilter & { attrName: string }, periodMs: number, page: { limit: number; offset: number },
): Promise<BucketStats[]> {
  const granule = rollupGranuleOf(periodMs, filter.timeIndex);
  return granule === undefined
    ? aggregateRawReadings(store, filter, periodMs, page)
    : aggregateFromRollups(store, filter, periodMs, granule, page, aggregateRawReadings);
}

/**
 * aggregateReadings from the raw readings. The bucket arithmetic is integer
 * division on epoch ms, the same in both stores.
 */
export async function aggregateRawReadings(
  store: Store, filter: ReadingsFilter & { attrName: string }, periodMs: number, page: { limit: number; offset: number },
): Promise<BucketStats[]> {
  const period = sql.lit(periodMs);
  const value = store.dialect.readings.numericValue();
  const time = sql.ref(timeColumn(filter.timeIndex));
  const range = filter.range
    ? sql`and ${time} >= ${filter.range.from} and ${time} <= ${filter.range.to}`
    : sql``;
  const nameId = await store.terms.idOf(filter.attrName);
  const readings = filter.timeIndex === 'observed'
    ? sql`(${byObservation(store.read, store.dialect.readings, { assetSeq: filter.assetSeq, nameId, range: filter.range, direction: 'asc' })}) as readings`
    : sql`(${store.dialect.readings.series(store.read, { assetSeq: filter.assetSeq, nameId, range: filter.range }).selectAll()}) as readings`;
  // The LIMIT keeps the subquery from being merged into the outer one (both stores do that), which
  // would repeat the numeric test for the filter and for every aggregate.
  const result = await sql<{ bucket: number; n: number; total: number; least: number; greatest: number }>`
    select bucket, count(v) as n, sum(v) as total, min(v) as least, max(v) as greatest
    from (
      select (${time} / ${period}) * ${period} as bucket, ${value} as v from ${readings}
      where asset_seq = ${filter.assetSeq} and name_id = ${nameId} ${range}
      limit ${sql.raw(NO_LIMIT)}
    ) numbers
    where v is not null
    group by bucket
    order by bucket
    limit ${page.limit} offset ${page.offset}`.execute(store.read);
  return result.rows.map((r) => ({ start: Number(r.bucket), count: Number(r.n), sum: Number(r.total), min: Number(r.least), max: Number(r.greatest) }));
}

const HISTORY_ASSET_COLUMNS = ['seq', 'id', 'type', 'site', 'experimenter', 'experiment'] as const;

/** The assets (deleted ones included) with these ids, by id. */
export async function findHistoryAssets(store: Store, ids: readonly string[]): Promise<HistoryAsset[]> {
  if (ids.length === 0) return [];
  const rows = await store.read.selectFrom('assets').select(HISTORY_ASSET_COLUMNS).where('id', 'in', ids).orderBy('id').execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

/**
 * At most `limit` assets (deleted ones included) of a type and/or site that
 * recorded the attribute, by id.
 */
export async function selectHistoryAssets(
  store: Store, choice: { type: string | undefined; site: string | undefined; attrName: string }, limit: number,
): Promise<HistoryAsset[]> {
  let q = store.read.selectFrom('assets')
    .innerJoin('asset_attributes', (j) => j.onRef('asset_attributes.asset_seq', '=', 'assets.seq').on('asset_attributes.name', '=', choice.attrName))
    .select(HISTORY_ASSET_COLUMNS.map((c) => `assets.${c}` as const));
  if (choice.type !== undefined) q = q.where('assets.type', '=', choice.type);
  if (choice.site !== undefined) q = q.where('assets.site', '=', choice.site);
  const rows = await q.orderBy('assets.id').limit(limit).execute();
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}
