import { sql } from 'kysely';
import type { BucketStats } from '../../domain/aggregation.js';
import { DAY_MS, HOUR_MS, daysBuildableBefore, foldIntoBuckets, splitForRollups, startOfDay } from '../../domain/history-rollups.js';
import { readPrepared } from '../prepared-read.js';
import { BUILT_BEFORE, buildDay, DAYS_BUILT_BEFORE } from '../shared/reading-rollups.js';
import type { Store } from '../store.js';
import type { ReadingsFilter } from './readings.js';

/** How aggregateReadings reads raw readings, for the pieces of a range that cut a granule. */
export type RawAggregate = (
  store: Store, filter: ReadingsFilter & { attrName: string }, periodMs: number, page: { limit: number; offset: number },
) => Promise<BucketStats[]>;

const EVERYTHING = { limit: Number.MAX_SAFE_INTEGER, offset: 0 };

/**
 * Buckets of `periodMs` (whole granules) of one attribute read from its
 * rollups of `granule`: the granules the range holds whole, plus the pieces at
 * its ends read from raw readings and added to their buckets. Ascending by
 * start; the page counts buckets.
 */
export async function aggregateFromRollups(
  store: Store, filter: ReadingsFilter & { attrName: string }, periodMs: number, granule: number, page: { limit: number; offset: number },
  raw: RawAggregate,
): Promise<BucketStats[]> {
  const split = splitForRollups(filter.range, granule);
  // With edges, the page's buckets are among the edges' (at most two) and the first offset + limit whole ones.
  const reach = { limit: Math.min(EVERYTHING.limit, page.offset + page.limit), offset: 0 };
  const whole = split.whole === undefined ? [] : await wholeBuckets(store, filter, periodMs, granule, split.whole, split.edges.length === 0 ? page : reach);
  if (split.edges.length === 0) return whole;
  const pieces: BucketStats[] = [];
  for (const range of split.edges) pieces.push(...(await raw(store, { ...filter, range }, granule, EVERYTHING)));
  const parts = [...whole, ...pieces].sort((a, b) => a.start - b.start);
  return foldIntoBuckets(parts, periodMs).slice(page.offset, page.offset + page.limit);
}

/** A bucket as both stores return it (int8 and numeric may come as text). */
interface BucketRow {
  start: number | string;
  n: number | string;
  total: number;
  least: number;
  greatest: number;
}

async function wholeBuckets(
  store: Store, filter: ReadingsFilter & { attrName: string }, periodMs: number, granule: number,
  whole: { first: number; last: number } | 'all', page: { limit: number; offset: number },
): Promise<BucketStats[]> {
  const period = sql.lit(periodMs);
  const range = whole === 'all' ? sql`` : sql`and bucket >= ${whole.first} and bucket < ${whole.last + granule}`;
  const limit = page.limit === Number.MAX_SAFE_INTEGER ? sql`` : sql`limit ${page.limit} offset ${page.offset}`;
  const series = sql`asset_seq = ${filter.assetSeq} and attr_name = ${filter.attrName}`;
  // Days: the rows of the days built, then the days after them made of their hours (../shared/reading-rollups.ts), in one snapshot.
  const granules = granule === DAY_MS
    ? sql`select bucket as start, n, total, least, greatest from reading_rollups
        where ${series} and period_ms = ${sql.lit(DAY_MS)} and bucket < ${sql.raw(DAYS_BUILT_BEFORE)} ${range}
      union all
      select (bucket / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}, sum(n), sum(total), min(least), max(greatest) from reading_rollups
        where ${series} and period_ms = ${sql.lit(HOUR_MS)} and bucket >= ${sql.raw(DAYS_BUILT_BEFORE)} ${range}
        group by (bucket / ${sql.lit(DAY_MS)}) * ${sql.lit(DAY_MS)}`
    : sql`select bucket as start, n, total, least, greatest from reading_rollups where ${series} and period_ms = ${sql.lit(granule)} ${range}`;
  // A bucket of one granule is its granule's row as it is: nothing more to group (PostgreSQL sums bigints as numeric, slowly).
  const result = await (periodMs === granule
    ? sql<BucketRow>`select start, n, total, least, greatest from (${granules}) granules order by start ${limit}`
    : sql<BucketRow>`
      select (start / ${period}) * ${period} as start, sum(n) as n, sum(total) as total, min(least) as least, max(greatest) as greatest
      from (${granules}) granules
      group by (start / ${period}) * ${period}
      order by start
      ${limit}`).execute(store.read);
  return result.rows.map((r) => ({ start: Number(r.start), count: Number(r.n), sum: Number(r.total), min: Number(r.least), max: Number(r.greatest) }));
}

/** Assets a write of a day's rollups covers at most: each write is short, between the others. */
const BUILD_ASSETS = 500;

/**
 * Builds the rollups of the days that have ended (daysBuildableBefore) from
 * their hours, oldest first, each in short writes of a few hundred assets,
 * then counts the day as built; days with no hour are passed over. How many
 * days it built. Several processes may build at once: a day built twice is
 * the same day.
 */
export async function buildEndedDays(store: Store, now: number, stopped: () => boolean = () => false): Promise<number> {
  const until = daysBuildableBefore(now);
  let built = 0;
  while (!stopped()) {
    const [marker] = await readPrepared(store, BUILT_BEFORE, []);
    const builtBefore = Number(marker?.built_before ?? until);
    if (builtBefore >= until) return built;
    const next = await store.read.selectFrom('reading_rollups').select((eb) => eb.fn.min('bucket').as('first'))
      .where('period_ms', '=', HOUR_MS).where('bucket', '>=', builtBefore).where('bucket', '<', until).executeTakeFirst();
    const day = next?.first === null || next?.first === undefined ? until : startOfDay(Number(next.first));
    if (day < until) {
      const assets = await store.read.selectFrom('assets').select((eb) => eb.fn.max('seq').as('last')).executeTakeFirst();
      const last = Number(assets?.last ?? 0);
      for (let after = -1; after < last && !stopped(); after += BUILD_ASSETS) {
        await store.writes.run((trx) => buildDay(day, after, after + BUILD_ASSETS).execute(trx));
      }
      if (stopped()) return built;
      built++;
    }
    const through = Math.min(until, day + DAY_MS);
    await store.writes.run((trx) => trx.updateTable('rollup_days').set({ built_before: through }).where('id', '=', 1).where('built_before', '<', through).execute());
  }
  return built;
}
