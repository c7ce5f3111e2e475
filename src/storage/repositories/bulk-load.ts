import { sql } from 'kysely';
import { ACTIVITY_BUCKET_MS } from '../../domain/activity.js';
import type { BulkWriter } from '../bulk-writer.js';
import { openBulkWriter } from '../open-store.js';
import { leaveLatestDayOpen, rebuildRollups, storedReadings } from '../shared/reading-rollups.js';
import { Store } from '../store.js';

export type { BulkAsset, BulkReading, BulkWriter } from '../bulk-writer.js';

/**
 * Loading a generated data set in bulk (benchmarks): big batched inserts on a
 * connection of its own, then every derived table rebuilt from the assets in
 * one pass, so that the store ends exactly as if each asset had been created
 * and updated through the federation write path (src/storage/write-pipeline.ts):
 * current state and position index, attribute catalogue, readings, asset
 * types, live-asset counters and hourly activity buckets.
 */

/** Rebuilding the derived tables of a big data set takes long statements: an offline load is not held to STORE_TIMEOUT. */
export const BULK_STORE_TIMEOUT_MS = 30 * 60_000;

export interface BulkLoadSummary {
  assets: number;
  readings: number;
}

/**
 * Migrates the store `databaseUrl` names, lets `fill` write assets and readings
 * through a bulk writer, then rebuilds the derived tables.
 */
export async function bulkLoad(databaseUrl: string, fill: (writer: BulkWriter) => Promise<void>): Promise<BulkLoadSummary> {
  const store = Store.open(databaseUrl);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  const writer = await openBulkWriter(databaseUrl);
  try {
    await fill(writer);
    await writer.finish();
  } finally {
    await writer.close();
  }
  const after = Store.open(databaseUrl, { timeoutMs: BULK_STORE_TIMEOUT_MS });
  try {
    await rebuildDerivedTables(after);
    // The bulk writer's statistics were taken before these tables were filled: without them, a
    // planner that believes the rollups empty reads a series' hours through the expiry index.
    await after.writes.run(async (trx) => {
      for (const table of DERIVED_TABLES) await sql`analyze ${sql.table(table)}`.execute(trx);
    });
    return await countContent(after);
  } finally {
    await after.close();
  }
}

/** The tables rebuildDerivedTables fills. */
const DERIVED_TABLES = ['asset_counts', 'asset_activity', 'asset_types', 'reading_rollups', 'rollup_days'] as const;

/**
 * Recomputes what the write path maintains incrementally: live assets per
 * (site, service, provider, type), per hourly bucket of their last reading,
 * the asset types in use, and the rollups of readings. Missing service and provider count as ''.
 */
export async function rebuildDerivedTables(store: Store): Promise<void> {
  const bucket = sql.lit(ACTIVITY_BUCKET_MS);
  await store.writes.run(async (trx) => {
    await trx.deleteFrom('asset_counts').execute();
    await sql`insert into asset_counts (site, service, provider, type, assets)
      select site, coalesce(service, ''), coalesce(provider, ''), type, count(*)
      from assets where deleted_at is null
      group by site, coalesce(service, ''), coalesce(provider, ''), type`.execute(trx);
    await trx.deleteFrom('asset_activity').execute();
    await sql`insert into asset_activity (site, service, provider, type, hour, assets)
      select site, coalesce(service, ''), coalesce(provider, ''), type, (last_reading_at / ${bucket}) * ${bucket}, count(*)
      from assets where deleted_at is null
      group by site, coalesce(service, ''), coalesce(provider, ''), type, (last_reading_at / ${bucket}) * ${bucket}`.execute(trx);
    // "where true": SQLite would otherwise read ON CONFLICT as a join constraint of the SELECT.
    await sql`insert into asset_types (id, description)
      select distinct type, '' from assets where true
      on conflict (id) do nothing`.execute(trx);
    await rebuildRollups(trx, store.dialect.readings.numericValue(), storedReadings(store.dialect.readings.every));
    await leaveLatestDayOpen(trx);
  });
}

export async function countContent(store: Store): Promise<BulkLoadSummary> {
  const assets = await store.read.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).where('deleted_at', 'is', null).executeTakeFirst();
  const readings = await sql<{ n: number | string }>`select count(*) as n from ${store.dialect.readings.every} as r`.execute(store.read);
  return { assets: Number(assets?.n ?? 0), readings: Number(readings.rows[0]?.n ?? 0) };
}
