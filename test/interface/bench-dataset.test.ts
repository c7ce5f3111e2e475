import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateDataset, planAsset, reportBody, reports, writeDatasetSites, type DatasetSpec } from '../../bench/lib/generate.js';
import { createAsset, updateAsset } from '../../src/services/federation.js';
import { Store } from '../../src/storage/store.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { namedReadings } from '../helpers/stored-readings.js';

/**
 * The bulk-loaded benchmark data set must leave the store exactly as the
 * federation write path would after receiving the same reports one by one:
 * same assets, readings, catalogues, counters, activity buckets and geo index.
 */
const SPEC: DatasetSpec = { assets: 60, readings: 900, end: Date.parse('2026-01-01T00:00:00.000Z'), seed: 7 };

type Row = Record<string, unknown>;

async function snapshot(store: Store) {
  const db = store.read;
  const num = (rows: Row[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
  return {
    assets: num(await db.selectFrom('assets').select(['seq', 'id', 'type', 'site', 'service', 'provider', 'grp', 'name', 'experimenter', 'experiment', 'attrs', 'latitude', 'longitude', 'recorded_at', 'last_reading_at', 'created_at', 'deleted_at']).orderBy('seq').execute()),
    readings: num(await namedReadings(db).select(['asset_seq', 'names.term as attr_name', 'recv_time', 'types.term as attr_type', 'attr_value']).orderBy('seq').execute()),
    attributes: num(await db.selectFrom('asset_attributes').selectAll().orderBy('asset_seq').orderBy('name').execute()),
    counts: num(await db.selectFrom('asset_counts').selectAll().orderBy('site').orderBy('service').orderBy('provider').orderBy('type').execute()),
    activity: num(await db.selectFrom('asset_activity').selectAll().orderBy('site').orderBy('service').orderBy('provider').orderBy('type').orderBy('hour').execute()),
    types: (await db.selectFrom('asset_types').select('id').orderBy('id').execute()).map((r) => r.id),
    sites: num(await db.selectFrom('sites').select(['id', 'latitude', 'longitude']).orderBy('id').execute()),
  };
}

for (const kind of STORES) {
  describe(`benchmark data set [${kind}]`, () => {
    let platform: TestPlatform;
    let bulk: TestDatabase;
    let bulkStore: Store;

    before(async () => {
      platform = await startPlatform(kind);
      bulk = await createTestDatabase(kind);
      await generateDataset(bulk.url, SPEC);
      bulkStore = Store.open(bulk.url);

      // The same reports, one request at a time, through the federation service.
      const { ctx, clock } = platform;
      await writeDatasetSites(ctx.store, SPEC.end as number);
      for (const report of reports(SPEC)) {
        clock.set(report.at + report.plan.latencyMs);
        const body = reportBody(report);
        if (report.isCreate) await createAsset(ctx, report.plan.site.id, body);
        else await updateAsset(ctx, report.plan.site.id, report.plan.id, body);
      }
    });

    after(async () => {
      await bulkStore?.close();
      await bulk?.drop();
      await platform?.close();
    });

    it('has the size asked for (readings come in whole reports, so a few may be missing)', async () => {
      const s = await snapshot(bulkStore);
      assert.equal(s.assets.length, SPEC.assets);
      assert.ok(s.readings.length <= SPEC.readings && s.readings.length > SPEC.readings - 10, `${s.readings.length} readings`);
    });

    it('equals, table by table, what federation stores for the same reports', async () => {
      const viaBulk = await snapshot(bulkStore);
      const viaFederation = await snapshot(platform.ctx.store);
      assert.deepEqual(viaBulk.assets, viaFederation.assets);
      assert.deepEqual(viaBulk.readings, viaFederation.readings);
      assert.deepEqual(viaBulk.attributes, viaFederation.attributes);
      assert.deepEqual(viaBulk.counts, viaFederation.counts);
      assert.deepEqual(viaBulk.activity, viaFederation.activity);
      assert.deepEqual(viaBulk.sites, viaFederation.sites);
      // The migrations seed the dictionary; both hold it plus every type in use.
      assert.deepEqual(viaBulk.types, viaFederation.types);
    });

    it('indexes every position for geo queries', async () => {
      for (const asset of (await snapshot(bulkStore)).assets) {
        const lat = asset.latitude as number;
        const lon = asset.longitude as number;
        const seqs = await bulkStore.dialect.assetQueries.seqsInBox(bulkStore.read, { minLon: lon - 1e-6, maxLon: lon + 1e-6, minLat: lat - 1e-6, maxLat: lat + 1e-6 });
        assert.ok(seqs.map(Number).includes(asset.seq as number), `${asset.id as string} is not in the geo index`);
      }
    });

    it('is the same data for the same seed, and assets keep their ids', () => {
      assert.deepEqual(planAsset(5, 7), planAsset(5, 7));
      assert.notEqual(planAsset(5, 7).id, planAsset(6, 7).id);
    });
  });
}
