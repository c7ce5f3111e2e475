import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { kmToRadians } from '../../src/domain/geo.js';
import { countAssets, pageOfCityAssets, type AssetCriteria } from '../../src/storage/repositories/discovery-assets.js';
import type { Store } from '../../src/storage/store.js';
import { storeMigratedTo } from '../helpers/earlier-store.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/** Assets as a store of the schema before the index of city positions held them. */
const ASSETS: Array<{ seq: number; id: string; site: string; deleted: boolean; longitude: number; latitude: number }> = [
  { seq: 1, id: 'urn:oc:entity:santander:env:live', site: 'santander', deleted: false, longitude: -3.81, latitude: 43.46 },
  { seq: 2, id: 'urn:oc:entity:santander:env:gone', site: 'santander', deleted: true, longitude: -3.8101, latitude: 43.4601 },
  { seq: 3, id: 'urn:oc:entity:experimenters:alice:exp-1:probe', site: 'experimenters', deleted: false, longitude: -3.8099, latitude: 43.4599 },
  { seq: 4, id: 'urn:oc:entity:santander:env:far', site: 'santander', deleted: false, longitude: -3.7, latitude: 43.4 },
];

for (const kind of STORES) {
  describe(`geo index migration [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await createTestDatabase(kind);
      store = await storeMigratedTo(db.url, '0500-readings-history-index');
      for (const a of ASSETS) {
        const [experimenter, experiment] = a.site === 'experimenters' ? ['alice', 'exp-1'] : [null, null];
        await sql`insert into assets (seq, id, type, site, name, experimenter, experiment, attrs, latitude, longitude, recorded_at, last_reading_at, created_at, deleted_at)
          values (${a.seq}, ${a.id}, 'urn:oc:entityType:iotdevice', ${a.site}, ${a.id.split(':').at(-1)}, ${experimenter}, ${experiment}, '{}',
            ${a.latitude}, ${a.longitude}, 0, 0, 0, ${a.deleted ? 1 : null})`.execute(store.db);
        if (kind === 'sqlite') {
          await sql`insert into assets_rtree (id, min_lon, max_lon, min_lat, max_lat) values (${a.seq}, ${a.longitude}, ${a.longitude}, ${a.latitude}, ${a.latitude})`.execute(store.db);
        } else {
          await sql`update assets set geog = ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography where seq = ${a.seq}`.execute(store.db);
        }
      }
      assert.equal((await store.migrate())[0], '0600-city-positions');
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    const near = (visible: AssetCriteria['visible']): AssetCriteria => ({ visible, area: { circle: { centre: { latitude: 43.46, longitude: -3.81 }, radius: kmToRadians(1) } } });

    it('finds and counts the live city assets stored before it, from the index alone', async () => {
      const anonymous = near({ all: false, experimenter: null, experiments: [] });
      const page = await pageOfCityAssets(store, anonymous, { limit: 30, offset: 0 }, 100);
      assert.deepEqual(page?.items.map((a) => a.id), ['urn:oc:entity:santander:env:live']);
      assert.equal(page?.total, 1);
      assert.equal(await countAssets(store, anonymous, 100), 1);
    });

    it('still finds the experimenters\' live assets for those who see them', async () => {
      assert.equal(await countAssets(store, near({ all: true }), 100), 2);
      assert.equal(await countAssets(store, near({ all: false, experimenter: 'alice', experiments: [] }), 100), 2);
      const all = await store.dialect.assetQueries.seqsInBox(store.read, { minLon: -3.82, maxLon: -3.80, minLat: 43.45, maxLat: 43.47 });
      // SQLite's trees hold live assets only; PostgreSQL's position column stays on every row.
      assert.deepEqual(all.map(Number).sort(), kind === 'sqlite' ? [1, 3] : [1, 2, 3]);
    });

    if (kind === 'postgres') {
      it('keeps the live city positions in an SP-GiST index on PostgreSQL (0800)', async () => {
        const index = await sql<{ method: string; definition: string }>`select am.amname as method, pg_get_indexdef(c.oid) as definition
          from pg_class c join pg_am am on am.oid = c.relam where c.relname = 'assets_city_positions'`.execute(store.db);
        assert.equal(index.rows[0]?.method, 'spgist');
        assert.match(index.rows[0]?.definition ?? '', /INCLUDE \(latitude, longitude, seq\) WHERE \(\(deleted_at IS NULL\) AND \(site <> 'experimenters'::text\)\)/);
      });
    }
  });
}
