import DataLoader from 'dataloader';
import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { AssetUrn } from '../../domain/urn.js';
import { PreparedQuery } from '../prepared-query.js';
import { readPrepared } from '../prepared-read.js';
import type { StoreReader } from '../ports.js';
import type { AssetTable, Database } from '../schema.js';

/** Rows of live assets as discovery reads them, by both stores alike. */

/** An asset as listings show it (no attributes). */
export interface AssetSummary extends AssetUrn {
  seq: number;
  id: string;
  type: string;
  latitude: number;
  longitude: number;
  recordedAt: number;
  lastReadingAt: number;
}

/** An asset with its current attributes (JSON text of NGSI v2 normalized attributes). */
export interface AssetDetail extends AssetSummary {
  attrs: string;
}

export const SUMMARY_COLUMNS = [
  'assets.seq', 'assets.id', 'assets.type', 'assets.site', 'assets.service', 'assets.provider', 'assets.grp',
  'assets.name', 'assets.experimenter', 'assets.experiment', 'assets.latitude', 'assets.longitude',
  'assets.recorded_at', 'assets.last_reading_at',
] as const;

export const SUMMARY_COLUMN_NAMES = SUMMARY_COLUMNS.map((c) => c.slice('assets.'.length));

export type SummaryRow = Pick<Selectable<AssetTable>, (typeof SUMMARY_COLUMNS)[number] extends `assets.${infer C}` ? C & keyof AssetTable : never>;

export type DetailRow = SummaryRow & { attrs: string };

export type AssetQuery = SelectQueryBuilder<Database, 'assets', any>;

export const toSummary = (r: SummaryRow): AssetSummary => ({
  seq: Number(r.seq), id: r.id, type: r.type, site: r.site, service: r.service, provider: r.provider, group: r.grp,
  name: r.name, experimenter: r.experimenter, experiment: r.experiment, latitude: r.latitude, longitude: r.longitude,
  recordedAt: Number(r.recorded_at), lastReadingAt: Number(r.last_reading_at),
});

/** At most this many rows are read by one shared statement. */
const MAX_READ_TOGETHER = 256;

/**
 * The reads of one kind (an asset by id; on PostgreSQL, a map search too)
 * that the requests arriving in one turn of the event loop make go to the
 * store as one statement, after that turn. On PostgreSQL each round trip
 * costs this process a socket write that wakes the database; on SQLite the
 * answers of a turn then go out together, each write not waking the client
 * for one answer alone. Nothing is kept between turns: every read reaches the
 * store after its request arrived.
 */
export function readTogether<K, V>(
  loaders: WeakMap<StoreReader, DataLoader<K, V | undefined>>, store: StoreReader, read: (keys: readonly K[]) => Promise<Map<K, V>>,
): DataLoader<K, V | undefined> {
  let loader = loaders.get(store);
  if (!loader) {
    loader = new DataLoader(async (keys: readonly K[]) => {
      const found = await read(keys);
      return keys.map((k) => found.get(k));
    }, { cache: false, maxBatchSize: MAX_READ_TOGETHER, batchScheduleFn: (run) => setImmediate(run) });
    loaders.set(store, loader);
  }
  return loader;
}

/** Live assets by a list of seqs (listParameter), any order; variant 1 with their attributes. */
const ROWS_BY_SEQ = new PreparedQuery<[list: string | number[]], DetailRow>(1, (db, [list], dialect, withAttributes) => {
  const query = db.selectFrom('assets').select(SUMMARY_COLUMNS).where(dialect.assetQueries.listed('seq', list)).where('assets.deleted_at', 'is', null);
  return (withAttributes === 1 ? query.select('assets.attrs') : query) as AssetQuery;
});

/** The rows of live assets by seq, in the order of `seqs` (one statement, whatever their number). */
export async function rowsBySeq(store: StoreReader, seqs: readonly number[], withAttributes: false): Promise<SummaryRow[]>;
export async function rowsBySeq(store: StoreReader, seqs: readonly number[], withAttributes: true): Promise<DetailRow[]>;
export async function rowsBySeq(store: StoreReader, seqs: readonly number[], withAttributes: boolean): Promise<SummaryRow[]> {
  if (seqs.length === 0) return [];
  const rows = await readPrepared(store, ROWS_BY_SEQ, [store.dialect.assetQueries.listParameter(seqs)], withAttributes ? 1 : 0);
  const bySeq = new Map(rows.map((r) => [Number(r.seq), r]));
  // Not flatMap: V8 runs it element by element through its generic path, and a page may hold a thousand rows.
  return seqs.map((s) => bySeq.get(s)).filter((row) => row !== undefined);
}
