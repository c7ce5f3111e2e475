import { sql, type Kysely, type RawBuilder } from 'kysely';
import { DAY_MS, HOUR_MS, ROLLUP_PERIODS_MS, rollupDeltas, type RolledReading, type RollupDelta } from '../../domain/history-rollups.js';
import type { ReadingRow } from '../../domain/update-plan.js';
import { PreparedQuery, rowRuns, type Session } from '../prepared-query.js';

/**
 * The hourly and daily rollups of readings (src/domain/history-rollups.ts):
 * the hours kept current by the transaction that writes the readings, each
 * day built from its hours once it has ended (`rollup_days.built_before`: the
 * day before which every day is built); plain SQL both stores run alike,
 * each store giving only its test of a numeric value.
 */

/** The day before which every day's rollup is built, as a scalar subquery (read in the statement's own snapshot). */
export const DAYS_BUILT_BEFORE = '(select built_before from rollup_days where id = 1)';

const periods = sql.raw(ROLLUP_PERIODS_MS.map((p) => `select ${p} as period_ms`).join(' union all '));

/** How a rollup row meets the stored one: counts and sums add, extremes, first and last by time keep the winner. */
export const ROLLUP_MERGE = `n = reading_rollups.n + excluded.n,
      total = reading_rollups.total + excluded.total,
      ${[['least', 'excluded.least < reading_rollups.least'], ['greatest', 'excluded.greatest > reading_rollups.greatest'],
    ['first_value', 'excluded.first_time < reading_rollups.first_time'], ['first_time', 'excluded.first_time < reading_rollups.first_time'],
    ['last_value', 'excluded.last_time >= reading_rollups.last_time'], ['last_time', 'excluded.last_time >= reading_rollups.last_time']]
    .map(([column, wins]) => `${column} = case when ${wins} then excluded.${column} else reading_rollups.${column} end`).join(',\n      ')}`;
const mergeRow = sql.raw(ROLLUP_MERGE);

/**
 * Adds readings to the rollups. `source` is a table of readings with columns
 * asset_seq, attr_name, recv_time, attr_value and ord (their write order);
 * `numeric` reads attr_value as a number, or NULL. First and last are by
 * receive time, ties going to the first and the last written.
 */
export function rollupUpsert(source: RawBuilder<unknown>, numeric: RawBuilder<number | null>): RawBuilder<never> {
  const series = sql`asset_seq, attr_name, period_ms, (recv_time / period_ms) * period_ms`;
  // "where true": SQLite would otherwise read ON CONFLICT as a join constraint of the SELECT.
  return sql<never>`insert into reading_rollups (asset_seq, attr_name, period_ms, bucket, n, total, least, greatest, first_time, first_value, last_time, last_value)
    select asset_seq, attr_name, period_ms, bucket, count(*), sum(v), min(v), max(v), min(recv_time), max(fv), max(recv_time), max(lv)
    from (
      select asset_seq, attr_name, period_ms, (recv_time / period_ms) * period_ms as bucket, v, recv_time,
        first_value(v) over (partition by ${series} order by recv_time, ord) as fv,
        first_value(v) over (partition by ${series} order by recv_time desc, ord desc) as lv
      from (select asset_seq, attr_name, recv_time, ord, ${numeric} as v from ${source} as source) numbers
      cross join (${periods}) periods
      where v is not null
    ) windowed
    where true
    group by asset_seq, attr_name, period_ms, bucket
    on conflict (asset_seq, attr_name, period_ms, bucket) do update set ${mergeRow}`;
}

export const ROLLUP_COLUMNS = ['asset_seq', 'attr_name', 'period_ms', 'bucket', 'n', 'total', 'least', 'greatest', 'first_time', 'first_value', 'last_time', 'last_value'] as const;

/** Rollup rows to merge (variant: rows). */
const MERGE_ROLLUPS = new PreparedQuery<unknown[], never>((rows) => ROLLUP_COLUMNS.length * rows, (_db, p, _dialect, rows) => {
  const width = ROLLUP_COLUMNS.length;
  const values = sql.join(Array.from({ length: rows }, (_, i) => sql`(${sql.join(ROLLUP_COLUMNS.map((_c, k) => sql`${p[width * i + k]}`))})`));
  return sql<never>`insert into reading_rollups (${sql.raw(ROLLUP_COLUMNS.join(', '))}) values ${values}
    on conflict (asset_seq, attr_name, period_ms, bucket) do update set ${mergeRow}`;
});

const rowOf = (d: RollupDelta): unknown[] => [d.assetSeq, d.attrName, d.periodMs, d.bucket, d.count, d.sum, d.min, d.max, d.firstTime, d.firstValue, d.lastTime, d.lastValue];

/** The day before which every day's rollup is built, read on its own. */
export const BUILT_BEFORE = new PreparedQuery<[], { built_before: number | string | null }>(0, () => sql`select ${sql.raw(DAYS_BUILT_BEFORE)} as built_before`);

/** Adds a batch's readings, in write order, to the rollups of their series (SQLite: in process, a statement costs microseconds). */
export async function addToRollups(session: Session, rows: readonly ReadingRow[]): Promise<void> {
  const builtBefore = Number((await BUILT_BEFORE.run(session, [])).rows[0]?.built_before ?? 0);
  for (const run of rowRuns(rollupDeltas(rows, builtBefore))) await MERGE_ROLLUPS.runRows(session, run, rowOf);
}

/**
 * What a batch's readings add to the rollups as one array per column (in
 * ROLLUP_COLUMNS order), for a statement that unnests them; `key` names each
 * series' asset in the first column (its seq, or what the statement joins on).
 * Every day a reading adds to is given: the statement keeps only the days
 * already built (keepsDelta), in the snapshot it writes in.
 */
export function rollupColumns<K>(rows: readonly RolledReading[], key: (seq: number) => K): unknown[][] {
  const columns: unknown[][] = ROLLUP_COLUMNS.map(() => []);
  for (const delta of rollupDeltas(rows, Number.POSITIVE_INFINITY)) {
    const row = rowOf(delta);
    row[0] = key(delta.assetSeq);
    row.forEach((value, k) => (columns[k] as unknown[]).push(value));
  }
  return columns;
}

/** Whether a delta of rollup `alias` (its period_ms and bucket) is written: every hour, and the days already built. */
export const keepsDelta = (alias: string): string => `(${alias}.period_ms = ${HOUR_MS} or ${alias}.bucket < ${DAYS_BUILT_BEFORE})`;

/** Every reading `every` gives (ReadingQueries.every) as rollupUpsert takes them. */
export const storedReadings = (every: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`(select r.asset_seq, n.term as attr_name, r.recv_time, r.attr_value, r.seq as ord from ${every} r join reading_terms n on n.id = r.name_id)`;

/**
 * Builds the hourly and daily rollups of `readings` again (every stored
 * reading for bulk loads, storedReadings; a migration gives them as its step
 * of the schema has them); see leaveLatestDayOpen.
 */
export async function rebuildRollups(db: Kysely<any>, numeric: RawBuilder<number | null>, readings: RawBuilder<unknown>): Promise<void> {
  await sql`delete from reading_rollups`.execute(db);
  await rollupUpsert(readings, numeric).execute(db);
}

/**
 * Once every day's rollup is in place (kept current, or rebuilt): the latest
 * day is left to its hours, since more readings may come for it, and every
 * day before it counts as built.
 */
export async function leaveLatestDayOpen(db: Kysely<any>): Promise<void> {
  await sql`update rollup_days set built_before = coalesce((select max(bucket) from reading_rollups where period_ms = ${DAY_MS}), 0) where id = 1`.execute(db);
  await sql.raw(`delete from reading_rollups where period_ms = ${DAY_MS} and bucket >= ${DAYS_BUILT_BEFORE}`).execute(db);
}

/**
 * Builds the rollup of `day` from its hours for the assets whose seq is in
 * (`after`, `through`], replacing what a build cut short left. First and last
 * are those of the day's first and last hours.
 */
export function buildDay(day: number, after: number, through: number): RawBuilder<never> {
  const series = sql.raw('partition by asset_seq, attr_name');
  return sql<never>`insert into reading_rollups (${sql.raw(ROLLUP_COLUMNS.join(', '))})
    select asset_seq, attr_name, ${sql.lit(DAY_MS)}, ${sql.lit(day)}, sum(n), sum(total), min(least), max(greatest), min(first_time), max(fv), max(last_time), max(lv)
    from (
      select asset_seq, attr_name, n, total, least, greatest, first_time, last_time,
        first_value(first_value) over (${series} order by first_time) as fv,
        first_value(last_value) over (${series} order by last_time desc) as lv
      from reading_rollups
      where asset_seq > ${sql.lit(after)} and asset_seq <= ${sql.lit(through)} and period_ms = ${sql.lit(HOUR_MS)} and bucket >= ${sql.lit(day)} and bucket < ${sql.lit(day + DAY_MS)}
    ) hours
    where true
    group by asset_seq, attr_name
    on conflict (asset_seq, attr_name, period_ms, bucket) do update set ${sql.raw(ROLLUP_COLUMNS.slice(4).map((c) => `${c} = excluded.${c}`).join(', '))}`;
}
