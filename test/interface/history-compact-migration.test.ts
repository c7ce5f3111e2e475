import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { findReadings, mergedReadings } from '../../src/storage/repositories/readings.js';
import type { Store } from '../../src/storage/store.js';
import { addEarlierAsset, storeMigratedTo } from '../helpers/earlier-store.js';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';

/**
 * A store made before 1700-readings-compact, with readings whose names and
 * types are spelled out in each row: after the migration every reading reads
 * back the same (name, type, value as sent, receive and observation times),
 * in the same order, by either time index.
 */
const T0 = Date.parse('2025-09-01T00:00:00.000Z');
const NAMES = ['temperature:ambient', 'note', 'dirección', 'TimeInstant'];
const TYPES = ['urn:oc:attributeType:temperature:ambient', 'Text', 'Number', 'urn:oc:attributeType:ISO8601'];
const READINGS = Array.from({ length: 240 }, (_, i) => {
  const recvTime = T0 + Math.floor(i / 4) * 60_000 + (i % 3 === 0 ? 0 : 7);
  // Every ninth was observed hours before it arrived (a site that was offline), one a little after.
  const observedTime = i % 9 === 0 ? recvTime - 3 * 3_600_000 - i : i % 11 === 0 ? recvTime + 2_000 : recvTime - 150;
  const k = i % 4;
  return {
    seq: i + 1, name: NAMES[k] as string,
    // The type of a series may change between readings.
    type: i % 17 === 0 ? 'Float' : TYPES[k] as string,
    // TimeInstant: its own observation time as sent (which SQLite leaves out and gives back), without milliseconds, or another time.
    value: k === 0 ? `${(i % 40) / 4}0` : k === 1 ? `"texto ${i} ✓"` : k === 2 ? '52.00'
      : i % 3 === 0 ? new Date(observedTime).toISOString() : i % 3 === 1 ? new Date(observedTime).toISOString().replace('.000Z', 'Z') : new Date(recvTime).toISOString(),
    recvTime, observedTime,
  };
});

for (const kind of STORES) {
  describe(`compact readings migration [${kind}]`, () => {
    let db: TestDatabase;
    let store: Store;
    before(async () => {
      db = await createTestDatabase(kind);
      store = await storeMigratedTo(db.url, '1600-rollup-days');
      await addEarlierAsset(store, NAMES);
      for (const r of READINGS) {
        await sql`insert into readings (seq, asset_seq, attr_name, recv_time, observed_time, attr_type, attr_value)
          values (${r.seq}, 1, ${r.name}, ${r.recvTime}, ${r.observedTime}, ${r.type}, ${r.value})`.execute(store.db);
      }
      // SQLite's writers number readings from reading_seq (migration 1300-readings-clustered).
      if (kind === 'sqlite') await sql`update reading_seq set last = ${READINGS.length} where id = 1`.execute(store.db);
      assert.deepEqual(await store.migrate(), ['1700-readings-compact', '1800-readings-observed-in-key', '1900-reading-blocks']);
    });
    after(async () => {
      await store.close();
      await db.drop();
    });

    it('keeps every reading: name, type, value as sent, receive and observation time, in write order', async () => {
      const read = await mergedReadings(store, { assetSeq: 1, range: undefined, withObservedTime: true }, 'asc', { limit: 1000, offset: 0 });
      const expected = [...READINGS].sort((a, b) => a.recvTime - b.recvTime || a.seq - b.seq);
      assert.deepEqual(read.map((r) => [r.attrName, r.attrType, r.attrValue, Number(r.recvTime), Number(r.observedTime)]),
        expected.map((r) => [r.name, r.type, r.value, r.recvTime, r.observedTime]));
      if (kind === 'sqlite') {
        // The TimeInstants that are their own observation time's text, to the millisecond, are given back rather than stored.
        const left = await sql<{ n: number }>`select count(*) as n from readings where sent_value is null`.execute(store.read);
        assert.equal(Number(left.rows[0]?.n), READINGS.filter((r) => r.value === new Date(r.observedTime).toISOString()).length);
      }
    });

    it('reads one attribute by observation time, the late ones in their place', async () => {
      for (const name of NAMES) {
        const read = await findReadings(store, { assetSeq: 1, attrName: name, range: undefined, timeIndex: 'observed' }, { kind: 'page', limit: 1000, offset: 0 });
        const expected = READINGS.filter((r) => r.name === name).sort((a, b) => a.observedTime - b.observedTime || a.seq - b.seq);
        assert.deepEqual(read.map((r) => [r.attrValue, Number(r.observedTime)]), expected.map((r) => [r.value, r.observedTime]), name);
      }
    });

    it('numbers the readings written after it past those it kept', async () => {
      const next = kind === 'sqlite'
        ? Number((await sql<{ last: number }>`select last from reading_seq where id = 1`.execute(store.read)).rows[0]?.last) + 1
        : Number((await sql<{ n: string }>`select nextval(pg_get_serial_sequence('readings', 'seq')) as n`.execute(store.read)).rows[0]?.n);
      assert.ok(next > READINGS.length, `next reading number ${next}`);
    });
  });
}
