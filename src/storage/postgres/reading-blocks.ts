import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { DAY_MS, startOfDay } from '../../domain/history-rollups.js';
import type { Executor, ReadingBlocks, SeriesWalk } from '../ports.js';
import type { Database } from '../schema.js';
import { OFF_TIME_READING } from '../shared/off-time-readings.js';
import { receivedIn } from '../shared/received-in.js';

/**
 * PostgreSQL's packed history (migration 1900-reading-blocks): the readings
 * of a series received on a day that has ended, and within moments of their
 * observation, are moved into blocks of that series and day; every read of
 * readings goes through `seriesOf`, which gives rows and blocks as one table.
 */

const FAR = Number.MAX_SAFE_INTEGER;

/** The columns of `readings`, in the order both halves of a series give them. */
const COLUMNS_LIST = ['asset_seq', 'name_id', 'recv_time', 'seq', 'observed_time', 'type_id', 'attr_value'] as const;
const COLUMNS = sql.raw(COLUMNS_LIST.join(', '));

/**
 * The readings of the blocks `from` gives (a table with the columns of reading_blocks) that pass
 * `blocks` (terms on `b`, the block), as rows of `readings` (`u`) that pass `rows`.
 */
function blockRows(from: RawBuilder<unknown>, blocks: readonly RawBuilder<unknown>[], rows: readonly RawBuilder<unknown>[] = []): RawBuilder<unknown> {
  const all = (terms: readonly RawBuilder<unknown>[]) => (terms.length > 0 ? sql.join(terms, sql` and `) : sql`true`);
  return sql`select * from (
      select b.asset_seq, b.name_id, b.first_time + t.time_offset as recv_time, b.first_seq + t.seq_offset as seq,
        b.first_time + t.time_offset + t.observed_offset as observed_time, t.type_id, t.attr_value
      from ${from} as b cross join lateral unnest(b.time_offsets, b.seq_offsets, b.observed_offsets, b.type_ids, b.attr_values)
        as t(time_offset, seq_offset, observed_offset, type_id, attr_value)
      where ${all(blocks)}) as u
    where ${all(rows)}`;
}

/**
 * A statement's step `written` that writes the readings `rows` gives (a table with the columns of
 * `readings`) as blocks, one per series and day of receipt, giving back each block's count `n`.
 */
function insertBlocks(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  const order = sql.raw('order by recv_time, seq');
  const day = sql`recv_time / ${sql.lit(DAY_MS)}`;
  return sql`written as (
    insert into reading_blocks (asset_seq, name_id, first_time, last_time, first_seq, n, time_offsets, seq_offsets, observed_offsets, type_ids, attr_values)
    select asset_seq, name_id, min(recv_time), max(recv_time), min(block_seq), count(*),
      array_agg((recv_time - block_time)::integer ${order}), array_agg((seq - block_seq)::integer ${order}),
      array_agg((observed_time - recv_time)::integer ${order}), array_agg(type_id ${order}), array_agg(attr_value ${order})
    from (
      select r.*, first_value(recv_time) over w as block_time, first_value(seq) over w as block_seq
      from ${rows} as r
      window w as (partition by asset_seq, name_id, ${day} order by recv_time, seq)
    ) as placed
    group by asset_seq, name_id, ${day}
    returning n)`;
}

/** The readings the blocks of `written` hold. */
const WRITTEN = sql.raw('coalesce((select sum(n) from written), 0)');

const ON_TIME = sql.raw(`not ${OFF_TIME_READING}`);

/** Attributes of blocks: one, several, or every one. */
type Names = number | readonly number[] | undefined;

/** The blocks of a walk's series (or of its asset's attributes `names`) that may hold readings of it: those that overlap its range and key. */
function overlapping(walk: SeriesWalk, b: string, names: Names = walk.nameId): RawBuilder<unknown>[] {
  const at = (column: string) => sql.ref(`${b}.${column}`);
  const terms: RawBuilder<unknown>[] = [sql`${at('asset_seq')} = ${walk.assetSeq}`];
  // (A prepared query gives a marker in place of one number.)
  if (Array.isArray(names)) terms.push(sql`${at('name_id')} in (${sql.join(names as readonly number[])})`);
  else if (names !== undefined) terms.push(sql`${at('name_id')} = ${names}`);
  // A block holds one day of its series: one that ends at or after a time began less than a day before it (the key's range).
  const since = (time: unknown) => [sql`${at('last_time')} >= ${time}`, sql`${at('first_time')} > cast(${time} as bigint) - ${sql.lit(DAY_MS)}`];
  if (walk.range) terms.push(...since(walk.range.from), sql`${at('first_time')} <= ${walk.range.to}`);
  if (walk.after) terms.push(...(walk.direction === 'desc' ? [sql`${at('first_time')} <= ${walk.after.time}`] : since(walk.after.time)));
  return terms;
}

/** The blocks of a walk's series (or of `names`) whose every reading is in its range and past its key. */
function inside(walk: SeriesWalk, b: string, names: Names): RawBuilder<unknown>[] {
  const at = (column: string) => sql.ref(`${b}.${column}`);
  const terms = [...overlapping(walk, b, names)];
  if (walk.range) terms.push(sql`${at('first_time')} >= ${walk.range.from}`, sql`${at('last_time')} <= ${walk.range.to}`);
  if (walk.after) terms.push(walk.direction === 'desc' ? sql`${at('last_time')} < ${walk.after.time}` : sql`${at('first_time')} > ${walk.after.time}`);
  return terms;
}

/**
 * When only the first K readings of a walk are wanted (of the walks of `reachOver` merged, when
 * given), the blocks that may hold them. Ascending: the blocks wholly inside the walk, by first
 * time, add up to K readings by some block; those blocks end by the latest of their last times, so K
 * readings lie at or before it and a block that starts after it holds none of the first K. Newest
 * first, the same by first time from the latest: none of the K newest lies before the first time of
 * the block that brings the count to K. Each bound is read in the index's order and stops there.
 */
function withinReach(walk: SeriesWalk): RawBuilder<unknown> | undefined {
  const names = walk.reachOver ?? walk.nameId;
  if (walk.reach === undefined || names === undefined) return undefined;
  const k = walk.reach;
  const within = sql.join(inside(walk, 'c', names), sql` and `);
  return walk.direction === 'desc'
    ? sql`b.last_time >= coalesce((select first_time from (
        select sum(n) over w as cum, first_time from reading_blocks as c where ${within} window w as (order by first_time desc, first_seq desc)) as x
        where cum >= ${k} limit 1), ${sql.lit(-FAR)})`
    : sql`b.first_time <= coalesce((select reach_end from (
        select sum(n) over w as cum, max(last_time) over w as reach_end from reading_blocks as c where ${within} window w as (order by first_time, first_seq)) as x
        where cum >= ${k} limit 1), ${sql.lit(FAR)})`;
}

/** The readings of a walk, rows and blocks together (ReadingQueries.series). */
export function seriesOf(db: Executor, walk: SeriesWalk): SelectQueryBuilder<Database, 'readings', object> {
  let rows = receivedIn(db, walk);
  const blocks = overlapping(walk, 'b');
  const reach = withinReach(walk);
  if (reach) blocks.push(reach);
  const readings: RawBuilder<unknown>[] = [];
  const { range, after } = walk;
  if (range) readings.push(sql`u.recv_time >= ${range.from}`, sql`u.recv_time <= ${range.to}`);
  if (after) {
    const past = walk.direction === 'desc' ? sql.raw('<') : sql.raw('>');
    rows = rows.where((eb) => eb(eb.refTuple('recv_time', 'seq'), walk.direction === 'desc' ? '<' : '>', eb.tuple(after.time, after.seq)));
    readings.push(sql`(u.recv_time, u.seq) ${past} (${after.time}, ${after.seq})`);
  }
  let recent = rows.select(COLUMNS_LIST);
  // Rows are read in the index's order and no further than wanted, as they were without blocks.
  if (walk.reach !== undefined) {
    const direction = walk.direction ?? 'asc';
    recent = recent.orderBy('recv_time', direction).orderBy('seq', direction).limit(walk.reach);
  }
  const both = sql`(${recent} union all ${blockRows(sql`reading_blocks`, blocks, readings)})`;
  return db.selectFrom(both.as('readings')) as unknown as SelectQueryBuilder<Database, 'readings', object>;
}

/** Every stored reading, rows and blocks (ReadingQueries.every). */
export const everyReading = sql`(select ${COLUMNS} from readings union all ${blockRows(sql`reading_blocks`, [])})`;

export const postgresReadingBlocks: ReadingBlocks = {
  async pack(db, assetSeq, nameId, before, limit) {
    const series = sql`asset_seq = ${assetSeq} and name_id = ${nameId} and recv_time < ${before} and ${ON_TIME}`;
    const ends = await sql<{ first: number | string | null; next: number | string | null }>`select
        (select recv_time from readings where ${series} order by recv_time, seq limit 1) as first,
        (select recv_time from readings where ${series} order by recv_time, seq offset ${limit} limit 1) as next`.execute(db);
    const { first, next } = ends.rows[0] ?? { first: null, next: null };
    if (first === null) return 0;
    // Whole days, up to the day of the first reading past `limit`; a day of more is packed `limit` at a time.
    const nextDay = next === null ? undefined : startOfDay(Number(next));
    const cut = nextDay === undefined ? before : nextDay > startOfDay(Number(first)) ? nextDay : undefined;
    const taken = cut !== undefined
      ? sql`${series} and recv_time < ${cut}`
      : sql`(asset_seq, name_id, recv_time, seq) in (select asset_seq, name_id, recv_time, seq from readings where ${series} order by recv_time, seq limit ${limit})`;
    // The readings leave the table and become blocks in one statement.
    const result = await sql<{ packed: number | string | null }>`with moved as (
        delete from readings where ${taken} returning ${COLUMNS}),
      ${insertBlocks(sql`moved`)}
      select ${WRITTEN} as packed`.execute(db);
    return Number(result.rows[0]?.packed ?? 0);
  },

  async drop(db, assetSeq, nameId, before, maxBlocks) {
    const whole = await sql<{ readings: number | string | null; blocks: number | string }>`with gone as (
        delete from reading_blocks where (asset_seq, name_id, first_time, first_seq) in (
          select asset_seq, name_id, first_time, first_seq from reading_blocks
          where asset_seq = ${assetSeq} and name_id = ${nameId} and last_time < ${before}
          order by first_time limit ${maxBlocks})
        returning n)
      select coalesce(sum(n), 0) as readings, count(*) as blocks from gone`.execute(db);
    const readings = Number(whole.rows[0]?.readings ?? 0);
    if (Number(whole.rows[0]?.blocks ?? 0) >= maxBlocks) return { readings, more: true };
    // The block that straddles `before` is written again without what expired.
    const cut = await sql<{ cut: number | string | null; packed: number | string | null }>`with cut as (
        delete from reading_blocks where asset_seq = ${assetSeq} and name_id = ${nameId} and first_time < ${before} and last_time >= ${before}
        returning *),
      kept as (${blockRows(sql`cut`, [], [sql`u.recv_time >= ${before}`])}),
      ${insertBlocks(sql`kept`)}
      select coalesce((select sum(n) from cut), 0) as cut, ${WRITTEN} as packed`.execute(db);
    const row = cut.rows[0];
    return { readings: readings + Number(row?.cut ?? 0) - Number(row?.packed ?? 0), more: false };
  },
};
