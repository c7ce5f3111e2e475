import { sql } from 'kysely';
import type { BucketStats } from '../../domain/aggregation.js';
import { foldIntoBuckets, splitForRollups } from '../../domain/history-rollups.js';
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
  const range = whole === 'all' ? sql`` : sql`and bucket >= ${whole.first} and bucket <= ${whole.last}`;
  const limit = page.limit === Number.MAX_SAFE_INTEGER ? sql`` : sql`limit ${page.limit} offset ${page.offset}`;
  const where = sql`where asset_seq = ${filter.assetSeq} and attr_name = ${filter.attrName} and period_ms = ${granule} ${range}`;
  // A bucket of one granule is its rollup row as it is: nothing to group (PostgreSQL sums bigints as numeric, slowly).
  const result = await (periodMs === granule
    ? sql<BucketRow>`
      select bucket as start, n, total, least, greatest from reading_rollups ${where} order by bucket ${limit}`
    : sql<BucketRow>`
      select (bucket / ${period}) * ${period} as start, sum(n) as n, sum(total) as total, min(least) as least, max(greatest) as greatest
      from reading_rollups ${where}
      group by (bucket / ${period}) * ${period}
      order by start
      ${limit}`).execute(store.read);
  return result.rows.map((r) => ({ start: Number(r.start), count: Number(r.n), sum: Number(r.total), min: Number(r.least), max: Number(r.greatest) }));
}
