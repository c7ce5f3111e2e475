import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { findReadings } from '../../src/storage/repositories/readings.js';
import type { Store } from '../../src/storage/store.js';
import { addEarlierAsset, storeMigratedTo } from '../helpers/earlier-store.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/** Readings as a store of the schema before observation time held them (written through its own columns). */
const T0 = Date.parse('2025-06-01T00:00:00.000Z');
const READINGS = Array.from({ length: 300 }, (_, i) => ({
  name: ['TimeInstant', 'temperature:ambient', 'note'][i % 3] as string,
  recvTime: T0 + Math.floor(i / 3) * 60_000,
  type: ['urn:oc:attributeType:ISO8601', 'urn:oc:attributeType:temperature:ambient', 'Text'][i % 3] as string,
  value: [new Date(T0 + Math.floor(i / 3) * 60_000).toISOString(), `${(i % 50) / 4}0`, `line "${i}"\nñ`][i % 3] as string,
}));

for (const kind of STORES) {
  describe(`observation time migration [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await createTestDatabase(kind);
      store = await storeMigratedTo(db.url, '0900-changes');
      await addEarlierAsset(store, ['TimeInstant', 'temperature:ambient', 'note']);
      for (const r of READINGS) {
        await sql`insert into readings (asset_seq, attr_name, recv_time, attr_type, attr_value) values (1, ${r.name}, ${r.recvTime}, ${r.type}, ${r.value})`.execute(store.db);
      }
      // Every migration after the changes' runs, this one among them.
      const after = MIGRATIONS.map((m) => m.name).filter((name) => name > '0900-changes').sort();
      assert.equal(after.includes('1000-readings-observed-time'), true);
      assert.deepEqual(await store.migrate(), after);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('keeps every reading, exactly, with its receive time as observation time', async () => {
      for (const timeIndex of ['received', 'observed'] as const) {
        const read = await findReadings(store, { assetSeq: 1, attrName: undefined, range: undefined, timeIndex }, { kind: 'page', limit: 1000, offset: 0 });
        assert.deepEqual(read.map((r) => ({ name: r.attrName, recvTime: Number(r.recvTime), type: r.attrType, value: r.attrValue })), READINGS, timeIndex);
        if (timeIndex === 'observed') assert.deepEqual(read.map((r) => Number(r.observedTime)), READINGS.map((r) => r.recvTime));
      }
    });

    it('numbers the readings written after it after the ones it kept', async () => {
      const kept = await sql<{ seq: number }>`select max(seq) as seq from readings`.execute(store.db);
      assert.equal(Number(kept.rows[0]?.seq), READINGS.length);
      // SQLite numbers readings itself (migration 1300-readings-clustered): its counter starts after the kept ones.
      if (kind === 'sqlite') {
        const row = await sql<{ last: number }>`select last from reading_seq where id = 1`.execute(store.db);
        assert.equal(Number(row.rows[0]?.last), READINGS.length);
      }
    });
  });
}
