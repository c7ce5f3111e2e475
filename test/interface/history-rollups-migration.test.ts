import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { aggregateRawReadings, aggregateReadings } from '../../src/storage/repositories/readings.js';
import { buildEndedDays } from '../../src/storage/repositories/reading-rollups.js';
import type { Store } from '../../src/storage/store.js';
import { addEarlierAsset, storeMigratedTo } from '../helpers/earlier-store.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/** Readings of a store made before rollups: two attributes, one with a few values that are not numbers. */
const HOUR = 3_600_000;
const T0 = Date.parse('2025-09-01T00:00:00.000Z');
const READINGS = Array.from({ length: 400 }, (_, i) => ({
  name: i % 2 === 0 ? 'temperature:ambient' : 'note',
  recvTime: T0 + Math.floor(i / 2) * 7 * 60_000 + (i % 5 === 0 ? 0 : 1),
  value: i % 2 === 0 ? (i % 23 === 0 ? 'n/a' : `${(i % 37) / 4 - 3}`) : `${i}`,
}));

for (const kind of STORES) {
  describe(`rollups migration [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    /** The daily rollups as migration 1100 built them. */
    let built: Array<Record<string, unknown>>;
    before(async () => {
      db = await createTestDatabase(kind);
      store = await storeMigratedTo(db.url, '1050-site-history-retention');
      await addEarlierAsset(store, ['temperature:ambient', 'note']);
      for (const r of READINGS) {
        await sql`insert into readings (asset_seq, attr_name, recv_time, observed_time, attr_type, attr_value)
          values (1, ${r.name}, ${r.recvTime}, ${r.recvTime}, 'x', ${r.value})`.execute(store.db);
      }
      assert.ok((await store.migrate('1100-history-rollups')).includes('1100-history-rollups'));
      built = await store.read.selectFrom('reading_rollups').selectAll().where('period_ms', '=', 24 * HOUR).orderBy('asset_seq').orderBy('attr_name').execute();
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('keeps first and last by receive time, ties to the first and last written', async () => {
      const day = await store.read.selectFrom('reading_rollups').selectAll().where('attr_name', '=', 'note').where('period_ms', '=', 24 * HOUR).executeTakeFirstOrThrow();
      const notes = READINGS.filter((r) => r.name === 'note');
      assert.equal(Number(day.n), notes.length);
      assert.equal(Number(day.first_value), Number(notes[0]!.value));
      assert.equal(Number(day.last_value), Number(notes[notes.length - 1]!.value));
      assert.equal(Number(day.first_time), notes[0]!.recvTime);
    });

    it('builds the rollups of the readings already stored: every whole-hour aggregation equals the raw one (read as the latest schema reads them)', async () => {
      assert.ok((await store.migrate()).includes('1600-rollup-days'));
      for (const attrName of ['temperature:ambient', 'note']) {
        for (const periodMs of [HOUR, 2 * HOUR, 24 * HOUR]) {
          for (const range of [undefined, { from: T0 + HOUR, to: T0 + 20 * HOUR - 1 }, { from: T0 + 1234567, to: T0 + 15 * HOUR + 999 }]) {
            const filter = { assetSeq: 1, attrName, range };
            const page = { limit: 1000, offset: 0 };
            const rolled = await aggregateReadings(store, filter, periodMs, page);
            assert.ok(rolled.length > 0);
            // Quarters: exact in any order of addition.
            assert.deepEqual(rolled, await aggregateRawReadings(store, filter, periodMs, page), `${attrName} ${periodMs} ${JSON.stringify(range)}`);
          }
        }
      }
      const rows = await store.read.selectFrom('reading_rollups').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      assert.ok(Number(rows?.n) > 0);
    });

    it('1600 leaves the latest day to its hours and builds it again once it has ended: every aggregation still equals the raw one', async () => {
      const marker = await store.read.selectFrom('rollup_days').select('built_before').executeTakeFirstOrThrow();
      assert.equal(Number(marker.built_before), T0);
      const days = () => store.read.selectFrom('reading_rollups').selectAll().where('period_ms', '=', 24 * HOUR).orderBy('asset_seq').orderBy('attr_name').execute();
      assert.deepEqual(await days(), []);
      const same = async () => {
        for (const attrName of ['temperature:ambient', 'note']) {
          for (const periodMs of [HOUR, 24 * HOUR, 48 * HOUR]) {
            const filter = { assetSeq: 1, attrName, range: undefined };
            const page = { limit: 1000, offset: 0 };
            assert.deepEqual(await aggregateReadings(store, filter, periodMs, page), await aggregateRawReadings(store, filter, periodMs, page), `${attrName} ${periodMs}`);
          }
        }
      };
      await same();
      // The day is built once it ended ten minutes ago, not before.
      assert.equal(await buildEndedDays(store, T0 + 24 * HOUR + 9 * 60_000), 0);
      assert.equal(await buildEndedDays(store, T0 + 24 * HOUR + 10 * 60_000), 1);
      assert.deepEqual((await days()).map((r) => Object.values(r).map(Number)), built.map((r) => Object.values(r).map(Number)));
      await same();
    });
  });
}
