import { sql, type Transaction } from 'kysely';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';

/**
 * The retention of history: each site's own (table site_retention), and the
 * dropping of what has expired, a short write at a time through the write
 * pipeline, so that the writes arriving meanwhile go in between.
 */

/** Rows one write drops at most. */
export const DROP_CHUNK = 2000;
/** Series (asset, attribute) one write visits at most. */
const SERIES_PER_WRITE = 256;

/** Sets a site's own retention (`90d`, `forever`), or, with null, lets it follow the platform's; false when there is no such site. */
export async function setSiteRetention(store: Store, site: string, retention: string | null): Promise<boolean> {
  return store.writes.run(async (trx) => {
    const found = await trx.selectFrom('sites').select('id').where('id', '=', site).executeTakeFirst();
    if (!found) return false;
    await trx.deleteFrom('site_retention').where('site', '=', site).execute();
    if (retention !== null) await trx.insertInto('site_retention').values({ site, retention }).execute();
    return true;
  });
}

/**
 * Each site that has assets or a retention of its own, with that retention, or
 * null where it follows the platform's; by id. The sites of assets count even
 * once the site itself was removed: their history stays, and expires.
 */
export async function listSiteRetentions(store: Store): Promise<Array<{ site: string; retention: string | null }>> {
  const own = await store.read.selectFrom('site_retention').select(['site', 'retention']).execute();
  const sites = await store.read.selectFrom('assets').select('site').distinct().execute();
  const retention = new Map<string, string | null>(sites.map((r) => [r.site, null]));
  for (const r of own) retention.set(r.site, r.retention);
  return [...retention].map(([site, value]) => ({ site, retention: value })).sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
}

/** Tells the answers kept for ranges (src/interfaces/datasource/history-answers.ts) that history lost something. */
async function countDrop(trx: Transaction<Database>): Promise<void> {
  await trx.updateTable('history_drops').set((eb) => ({ drops: eb('drops', '+', 1) })).where('id', '=', 1).execute();
}

interface Series {
  assetSeq: number;
  /** The attribute's name, as its number in reading_terms. */
  nameId: number;
}

/** The series of a site's assets, or of every asset (deleted ones included: their history stays until it expires). */
async function seriesOf(store: Store, site?: string): Promise<Series[]> {
  let q = store.read.selectFrom('assets').innerJoin('asset_attributes', 'asset_attributes.asset_seq', 'assets.seq')
    .select(['assets.seq', 'asset_attributes.name']);
  if (site !== undefined) q = q.where('assets.site', '=', site);
  const rows = await q.orderBy('assets.seq').orderBy('asset_attributes.name').execute();
  const ids = await store.terms.idsOf(rows.map((r) => r.name));
  return rows.map((r, i) => ({ assetSeq: Number(r.seq), nameId: ids[i] as number }));
}

/** What one series' turn in a write did: the readings it moved or dropped, what that cost of the write's budget, whether the series has more. */
interface SeriesTurn {
  readings: number;
  cost: number;
  more: boolean;
}

/**
 * Works through `series` a short write at a time: each write gives series
 * their turns, in order, until `chunk` of cost or SERIES_PER_WRITE series;
 * a series with more left is visited again by the next write. `wrote` runs at
 * the end of each write that moved readings. The readings moved in all.
 */
async function inShortWrites(
  store: Store, series: readonly Series[], chunk: number, turn: (trx: Transaction<Database>, s: Series, budget: number) => Promise<SeriesTurn>,
  stopped: () => boolean, wrote?: (trx: Transaction<Database>) => Promise<void>,
): Promise<number> {
  let moved = 0;
  let next = 0;
  while (next < series.length && !stopped()) {
    const from = next;
    const result = await store.writes.run(async (trx) => {
      let cost = 0;
      let n = 0;
      let at = from;
      for (; at < series.length && at < from + SERIES_PER_WRITE && cost < chunk; at++) {
        const done = await turn(trx, series[at] as Series, chunk - cost);
        cost += done.cost;
        n += done.readings;
        // A series with more left is visited again by the next write.
        if (done.more) break;
      }
      if (n > 0 && wrote) await wrote(trx);
      return { n, at };
    });
    moved += result.n;
    next = result.at;
    // The writes that arrived meanwhile go first.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return moved;
}

/** Whole blocks one write drops at most, and what each counts against the write's DROP_CHUNK. */
const BLOCKS_PER_WRITE = 32;
const BLOCK_COST = Math.ceil(DROP_CHUNK / BLOCKS_PER_WRITE);

/**
 * Drops the readings of the site received before `before` (epoch ms), oldest
 * first in each series, each write dropping at most DROP_CHUNK rows (or
 * BLOCKS_PER_WRITE packed blocks); how many readings it dropped. `stopped`
 * ends it early between two writes.
 */
export async function dropExpiredReadings(store: Store, site: string, before: number, stopped: () => boolean = () => false): Promise<number> {
  const blocks = store.dialect.readings.blocks;
  return inShortWrites(store, await seriesOf(store, site), DROP_CHUNK, async (trx, { assetSeq, nameId }, budget) => {
    // By the whole key: on SQLite it is the table's order (migration 1300-readings-clustered), and seq alone has no index there.
    const deleted = await trx.deleteFrom('readings').where((eb) => eb(eb.refTuple('asset_seq', 'name_id', 'recv_time', 'seq'), 'in',
      eb.selectFrom('readings').select(['asset_seq', 'name_id', 'recv_time', 'seq'])
        .where('asset_seq', '=', assetSeq).where('name_id', '=', nameId).where('recv_time', '<', before)
        .orderBy('recv_time').limit(budget).$asTuple('asset_seq', 'name_id', 'recv_time', 'seq'))).executeTakeFirst();
    const rows = Number(deleted.numDeletedRows);
    if (rows >= budget || !blocks) return { readings: rows, cost: rows, more: rows >= budget };
    const maxBlocks = Math.max(1, Math.floor((budget - rows) / BLOCK_COST));
    const packed = await blocks.drop(trx, assetSeq, nameId, before, maxBlocks);
    return { readings: rows + packed.readings, cost: rows + (packed.more ? maxBlocks : 1) * BLOCK_COST, more: packed.more };
  }, stopped, countDrop);
}

/** Readings one write packs, about (a day of a series is packed whole up to this many). */
const PACK_CHUNK = 4096;

/**
 * Packs the readings received before `before` into blocks where the store
 * keeps blocks (ReadingBlocks), a day of a series at a time, each write
 * packing about `chunk` readings; how many readings it packed (0 on a store
 * without blocks). Packing changes no answer: every read reads blocks too.
 */
export async function packReadings(store: Store, before: number, stopped: () => boolean = () => false, chunk = PACK_CHUNK): Promise<number> {
  const blocks = store.dialect.readings.blocks;
  if (!blocks) return 0;
  return inShortWrites(store, await seriesOf(store), chunk, async (trx, { assetSeq, nameId }, budget) => {
    let readings = 0;
    while (readings < budget) {
      const packed = await blocks.pack(trx, assetSeq, nameId, before, Math.min(chunk, PACK_CHUNK));
      // A probe that found nothing costs one.
      if (packed === 0) return { readings, cost: Math.max(readings, 1), more: false };
      readings += packed;
    }
    return { readings, cost: readings, more: true };
  }, stopped);
}

/** Drops the rollups of `periodMs` whose bucket started before `before`, DROP_CHUNK rows a write; how many. */
export async function dropExpiredRollups(store: Store, periodMs: number, before: number, stopped: () => boolean = () => false): Promise<number> {
  let dropped = 0;
  while (!stopped()) {
    const n = await store.writes.run(async (trx) => {
      const result = await sql`delete from reading_rollups where (asset_seq, attr_name, period_ms, bucket) in (
        select asset_seq, attr_name, period_ms, bucket from reading_rollups where period_ms = ${periodMs} and bucket < ${before} limit ${DROP_CHUNK})`.execute(trx);
      const n = Number(result.numAffectedRows ?? 0n);
      if (n > 0) await countDrop(trx);
      return n;
    });
    dropped += n;
    if (n < DROP_CHUNK) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return dropped;
}
