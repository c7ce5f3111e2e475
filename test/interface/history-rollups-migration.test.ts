import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrationProvider } from '../../src/storage/migrations/index.js';
import { aggregateRawReadings, aggregateReadings } from '../../src/storage/repositories/readings.js';
import { Store } from '../../src/storage/store.js';
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
    before(async () => {
      db = await createTestDatabase(kind);
      store = Store.open(db.url);
      const migrated = await new Migrator({ db: store.db, provider: migrationProvider(store.dialect.migrationStep) }).migrateTo('1050-site-history-retention');
      if (migrated.error) throw migrated.error;
      await sql`insert into assets (seq, id, type, site, name, attrs, latitude, longitude, recorded_at, last_reading_at, created_at)
        values (1, 'urn:oc:entity:santander:env:old', 'urn:oc:entityType:iotdevice', 'santander', 'old', '{}', 43.46, -3.81, 0, 0, 0)`.execute(store.db);
      for (const name of ['temperature:ambient', 'note']) await sql`insert into asset_attributes (asset_seq, name, type) values (1, ${name}, 'x')`.execute(store.db);
      for (const r of READINGS) {
        await sql`insert into readings (asset_seq, attr_name, recv_time, observed_time, attr_type, attr_value)
          values (1, ${r.name}, ${r.recvTime}, ${r.recvTime}, 'x', ${r.value})`.execute(store.db);
      }
      assert.ok((await store.migrate()).includes('1100-history-rollups'));
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('builds the rollups of the readings already stored: every whole-hour aggregation equals the raw one', async () => {
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

    it('keeps first and last by receive time, ties to the first and last written', async () => {
      const day = await store.read.selectFrom('reading_rollups').selectAll().where('attr_name', '=', 'note').where('period_ms', '=', 24 * HOUR).executeTakeFirstOrThrow();
      const notes = READINGS.filter((r) => r.name === 'note');
      assert.equal(Number(day.n), notes.length);
      assert.equal(Number(day.first_value), Number(notes[0]!.value));
      assert.equal(Number(day.last_value), Number(notes[notes.length - 1]!.value));
      assert.equal(Number(day.first_time), notes[0]!.recvTime);
    });
  });
}
