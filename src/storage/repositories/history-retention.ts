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

/** The series of a site's assets (deleted ones included: their history stays until it expires). */
async function seriesOfSite(store: Store, site: string): Promise<Series[]> {
  const rows = await store.read.selectFrom('assets').innerJoin('asset_attributes', 'asset_attributes.asset_seq', 'assets.seq')
    .select(['assets.seq', 'asset_attributes.name']).where('assets.site', '=', site).orderBy('assets.seq').orderBy('asset_attributes.name').execute();
  const ids = await store.terms.idsOf(rows.map((r) => r.name));
  return rows.map((r, i) => ({ assetSeq: Number(r.seq), nameId: ids[i] as number }));
}

/**
 * Drops the readings of the site received before `before` (epoch ms), oldest
 * first in each series, each write dropping at most DROP_CHUNK rows; how many
 * it dropped. `stopped` ends it early between two writes.
 */
export async function dropExpiredReadings(store: Store, site: string, before: number, stopped: () => boolean = () => false): Promise<number> {
  const series = await seriesOfSite(store, site);
  let dropped = 0;
  let next = 0;
  while (next < series.length && !stopped()) {
    const from = next;
    const result = await store.writes.run(async (trx) => {
      let n = 0;
      let at = from;
      for (; at < series.length && at < from + SERIES_PER_WRITE && n < DROP_CHUNK; at++) {
        const { assetSeq, nameId } = series[at] as Series;
        // By the whole key: on SQLite it is the table's order (migration 1300-readings-clustered), and seq alone has no index there.
        const deleted = await trx.deleteFrom('readings').where((eb) => eb(eb.refTuple('asset_seq', 'name_id', 'recv_time', 'seq'), 'in',
          eb.selectFrom('readings').select(['asset_seq', 'name_id', 'recv_time', 'seq'])
            .where('asset_seq', '=', assetSeq).where('name_id', '=', nameId).where('recv_time', '<', before)
            .orderBy('recv_time').limit(DROP_CHUNK - n).$asTuple('asset_seq', 'name_id', 'recv_time', 'seq'))).executeTakeFirst();
        const count = Number(deleted.numDeletedRows);
        n += count;
        // A series with more left to drop is visited again by the next write.
        if (n >= DROP_CHUNK) break;
      }
      if (n > 0) await countDrop(trx);
      return { n, at };
    });
    dropped += result.n;
    next = result.at;
    // The writes that arrived meanwhile go first.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return dropped;
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
