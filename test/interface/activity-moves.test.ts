import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CounterKey } from '../../src/domain/asset-counters.js';
import { moveActivity } from '../../src/storage/shared/asset-counters.js';
import { inSession } from '../../src/storage/prepared-query.js';
import { Store } from '../../src/storage/store.js';
import { STORES, createTestStore } from '../helpers/stores.js';

const PARKING: CounterKey = { site: 'santander', service: 'parking', provider: '', type: 'urn:oc:entityType:parkingSpot' };
const NOISE: CounterKey = { site: 'aarhus', service: 'noise', provider: "o'brien, {x}", type: 'urn:oc:entityType:noiseProbe' };

for (const kind of STORES) {
  describe(`activity counters moved by a batch of updates [${kind}]`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ store, dispose } = await createTestStore(kind));
    });
    after(() => dispose());

    const rows = async () => (await sql<{ site: string; provider: string; hour: number | string; assets: number | string }>`
      select site, provider, hour, assets from asset_activity order by site, hour`.execute(store.db)).rows
      .map((r) => [r.site, r.provider, Number(r.hour), Number(r.assets)]);

    it('moves counts between hours, a counter and hour moved both from and to included, and drops the hours left empty', async () => {
      await sql`insert into asset_activity (site, service, provider, type, hour, assets) values
        ('santander', 'parking', '', 'urn:oc:entityType:parkingSpot', 10, 2),
        ('santander', 'parking', '', 'urn:oc:entityType:parkingSpot', 11, 1),
        ('aarhus', 'noise', ${NOISE.provider}, 'urn:oc:entityType:noiseProbe', 7, 5)`.execute(store.db);
      await store.db.transaction().execute((trx) => inSession(trx, store.dialect, (session) => moveActivity(session, [
        { key: PARKING, from: 10, to: 11, n: 2 },
        { key: PARKING, from: 11, to: 12, n: 1 },
        { key: NOISE, from: 7, to: 12, n: 3 },
      ])));
      assert.deepEqual(await rows(), [
        ['aarhus', NOISE.provider, 7, 2],
        ['aarhus', NOISE.provider, 12, 3],
        ['santander', '', 11, 2],
        ['santander', '', 12, 1],
      ]);
    });
  });
}
