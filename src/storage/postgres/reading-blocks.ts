import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
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

const DAY_MS = 86_400_000;
const FAR = Number.MAX_SAFE_INTEGER;

/** The columns of `readings`, in the order both halves of a series give them. */
const COLUMNS_LIST = ['asset_seq', 'name_id', 'recv_time', 'seq', 'observed_time', 'type_id', 'attr_value'] as const;
const COLUMNS = sql.raw(COLUMNS_LIST.join(', '));

/**
 * The readings of the blocks `from` gives (a table with the columns of reading_blocks) that pass
 * `where` (on `b`, the block), as rows of `readings`: each receive time and seq is the block's first
 * plus the steps up to it, in the block's order.
 */
function blockRows(from: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`select b.asset_seq, b.name_id, u.recv_time, u.seq, u.recv_time + u.observed_offset as observed_time, u.type_id, u.attr_value
    from ${from} as b cross join lateral (
      select b.first_time + sum(t.time_step) over w as recv_time, b.first_seq + sum(t.seq_step) over w as seq,
        t.observed_offset, t.type_id, t.attr_value
      from unnest(b.time_steps, b.seq_steps, b.observed_offsets, b.type_ids, b.attr_values)
        with ordinality as t(time_step, seq_step, observed_offset, type_id, attr_value, ord)
      window w as (order by t.ord)) as u
    where ${where}`;
}

/**
 * A statement's step `written` that writes the readings `rows` gives (a table with the columns of
 * `readings`) as blocks, one per series and day of receipt, giving back each block's count `n`.
 */
function insertBlocks(rows: RawBuilder<unknown>): RawBuilder<unknown> {
  const order = sql.raw('order by recv_time, seq');
  return sql`written as (
    insert into reading_blocks (asset_seq, name_id, first_time, last_time, first_seq, n, time_steps, seq_steps, observed_offsets, type_ids, attr_values)
    select asset_seq, name_id, min(recv_time), max(recv_time), (array_agg(seq ${order}))[1], count(*),
      array_agg(time_step ${order}), array_agg(seq_step ${order}), array_agg((observed_time - recv_time)::integer ${order}),
      array_agg(type_id ${order}), array_agg(attr_value ${order})
    from (
      select r.*, (recv_time - lag(recv_time, 1, recv_time) over w)::integer as time_step, (seq - lag(seq, 1, seq) over w)::integer as seq_step
      from ${rows} as r
      window w as (partition by asset_seq, name_id, recv_time / ${sql.lit(DAY_MS)} order by recv_time, seq)
    ) as stepped
    group by asset_seq, name_id, recv_time / ${sql.lit(DAY_MS)}
    returning n)`;
}

/** The readings the blocks of `written` hold. */
const WRITTEN = sql.raw('coalesce((select sum(n) from written), 0)');

const ON_TIME = sql.raw(`not ${OFF_TIME_READING}`);

/** The blocks of a walk's series that may hold readings of it: those that overlap its range and key. */
function overlapping(walk: SeriesWalk, b: string): RawBuilder<unknown>[] {
  const at = (column: string) => sql.ref(`${b}.${column}`);
  const terms: RawBuilder<unknown>[] = [sql`${at('asset_seq')} = ${walk.assetSeq}`];
  if (walk.nameId !== undefined) terms.push(sql`${at('name_id')} = ${walk.nameId}`);
  if (walk.range) terms.push(sql`${at('last_time')} >= ${walk.range.from}`, sql`${at('first_time')} <= ${walk.range.to}`);
  if (walk.after) terms.push(walk.direction === 'desc' ? sql`${at('first_time')} <= ${walk.after.time}` : sql`${at('last_time')} >= ${walk.after.time}`);
  return terms;
}

/** The blocks of a walk's series whose every reading is in its range and past its key. */
function inside(walk: SeriesWalk, b: string): RawBuilder<unknown>[] {
  const at = (column: string) => sql.ref(`${b}.${column}`);
  const terms = [...overlapping(walk, b)];
  if (walk.range) terms.push(sql`${at('first_time')} >= ${walk.range.from}`, sql`${at('last_time')} <= ${walk.range.to}`);
  if (walk.after) terms.push(walk.direction === 'desc' ? sql`${at('last_time')} < ${walk.after.time}` : sql`${at('first_time')} > ${walk.after.time}`);
  return terms;
}

/**
 * When only the first K readings of a walk are wanted, the blocks that may hold them: in the
 * walk's order, the blocks wholly inside it add up to K readings by some block; every reading
 * among the first K lies no further than the furthest of those, so a block that starts beyond it
 * holds none of them.
 */
function withinReach(walk: SeriesWalk): RawBuilder<unknown> | undefined {
  if (walk.reach === undefined || walk.nameId === undefined) return undefined;
  const k = walk.reach;
  const within = sql.join(inside(walk, 'c'), sql` and `);
  return walk.direction === 'desc'
    ? sql`b.last_time >= coalesce((select case when max(cum) >= ${k} then min(first_time) filter (where cum - n < ${k}) end
        from (select n, first_time, sum(n) over (order by last_time desc, first_seq desc) as cum from reading_blocks as c where ${within}) as x), ${sql.lit(-FAR)})`
    : sql`b.first_time <= coalesce((select case when max(cum) >= ${k} then max(last_time) filter (where cum - n < ${k}) end
        from (select n, last_time, sum(n) over (order by first_time, first_seq) as cum from reading_blocks as c where ${within}) as x), ${sql.lit(FAR)})`;
}

/** The readings of a walk, rows and blocks together (ReadingQueries.series). */
export function seriesOf(db: Executor, walk: SeriesWalk): SelectQueryBuilder<Database, 'readings', object> {
  let rows = receivedIn(db, walk);
  const terms = overlapping(walk, 'b');
  const reach = withinReach(walk);
  if (reach) terms.push(reach);
  const { range, after } = walk;
  if (range) terms.push(sql`u.recv_time >= ${range.from}`, sql`u.recv_time <= ${range.to}`);
  if (after) {
    const past = walk.direction === 'desc' ? sql.raw('<') : sql.raw('>');
    rows = rows.where((eb) => eb(eb.refTuple('recv_time', 'seq'), walk.direction === 'desc' ? '<' : '>', eb.tuple(after.time, after.seq)));
    terms.push(sql`(u.recv_time, u.seq) ${past} (${after.time}, ${after.seq})`);
  }
  const packed = blockRows(sql`reading_blocks`, sql.join(terms, sql` and `));
  const both = sql`(${rows.select(COLUMNS_LIST)} union all ${packed})`;
  return db.selectFrom(both.as('readings')) as unknown as SelectQueryBuilder<Database, 'readings', object>;
}

/** Every stored reading, rows and blocks (ReadingQueries.every). */
export const everyReading = sql`(select ${COLUMNS} from readings union all ${blockRows(sql`reading_blocks`, sql`true`)})`;

export const postgresReadingBlocks: ReadingBlocks = {
  async pack(db, assetSeq, nameId, before, limit) {
    const series = sql`asset_seq = ${assetSeq} and name_id = ${nameId} and recv_time < ${before} and ${ON_TIME}`;
    const ends = await sql<{ first: number | string | null; next: number | string | null }>`select
        (select recv_time from readings where ${series} order by recv_time, seq limit 1) as first,
        (select recv_time from readings where ${series} order by recv_time, seq offset ${limit} limit 1) as next`.execute(db);
    const { first, next } = ends.rows[0] ?? { first: null, next: null };
    if (first === null) return 0;
    // Whole days, up to the day of the first reading past `limit`; a day of more is packed `limit` at a time.
    const dayOf = (ms: number | string) => Math.floor(Number(ms) / DAY_MS) * DAY_MS;
    const cut = next === null ? before : dayOf(next) > dayOf(first) ? dayOf(next) : undefined;
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
      kept as (${blockRows(sql`cut`, sql`u.recv_time >= ${before}`)}),
      ${insertBlocks(sql`kept`)}
      select coalesce((select sum(n) from cut), 0) as cut, ${WRITTEN} as packed`.execute(db);
    const row = cut.rows[0];
    return { readings: readings + Number(row?.cut ?? 0) - Number(row?.packed ?? 0), more: false };
  },
};
