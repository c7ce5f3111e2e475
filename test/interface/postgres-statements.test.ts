import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { PreparingPool } from '../../src/storage/postgres/preparing-pool.js';
import type { Store } from '../../src/storage/store.js';
import { createTestStore, STORES } from '../helpers/stores.js';

/**
 * PostgreSQL runs the statements Kysely sends again and again as prepared
 * statements (src/storage/postgres/preparing-pool.ts): the same answers,
 * each text parsed once per connection.
 */
describe('prepared statements on PostgreSQL', { skip: !STORES.includes('postgres') }, () => {
  let store: Store;
  let url: string;
  let dispose: () => Promise<void>;

  before(async () => {
    let db;
    ({ store, db, dispose } = await createTestStore('postgres'));
    url = db.url;
  });
  after(() => dispose());

  /** Names of the statements prepared on the connection a query runs on, with its answer. */
  const onOneConnection = <T>(work: (db: Store['read']) => Promise<T>) =>
    store.read.connection().execute(async (db) => {
      const value = await work(db);
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(db);
      return { value, prepared: prepared.rows };
    });

  it('prepares a statement with parameters once it has run a few times, with the same answers', async () => {
    const text = 'opencity-prepared-check';
    const { value, prepared } = await onOneConnection(async (db) => {
      const answers: string[] = [];
      for (let i = 0; i < 5; i++) answers.push((await sql<{ v: string }>`select ${text}::text || ${String(i)}::text as v`.execute(db)).rows[0]!.v);
      return answers;
    });
    assert.deepEqual(value, [0, 1, 2, 3, 4].map((i) => `${text}${i}`));
    assert.ok(prepared.some((p) => p.name.startsWith('oc_') && p.statement.includes('::text ||')), JSON.stringify(prepared));
  });

  it('leaves statements without parameters unprepared, so that one text may hold several commands', async () => {
    const { value, prepared } = await onOneConnection(async (db) => {
      for (let i = 0; i < 5; i++) await sql`create temporary table if not exists prepared_check (n int); insert into prepared_check values (1)`.execute(db);
      return (await sql<{ n: number }>`select count(*)::int as n from prepared_check`.execute(db)).rows[0]!.n;
    });
    assert.equal(value, 5);
    assert.ok(!prepared.some((p) => p.statement.includes('prepared_check')));
  });

  it('sends array parameters as they are: texts with quotes, backslashes, commas and braces, numbers, booleans and nulls', async () => {
    const texts = ['plain', 'with space', 'a,b', '{braced}', 'quote " inside', 'back\\slash', '\\"both', '', 'NULL', 'ünïcode €', null,
      JSON.stringify({ TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: '2026-01-01T00:00:00.000Z', metadata: {} }, note: { value: 'a "b" \\ c\nd' } }),
      'line\nbreak "quoted"', 'tab\t"and" \u0001 control', 'pair 😀 "emoji" \\', '\u2028"separators"\u2029'];
    const numbers = [0, -2.5, 1e21, 12345678901234, 0.1, null];
    const rows = (await sql<{ t: Array<string | null>; f: Array<number | null>; i: Array<string | null>; b: Array<boolean | null> }>`select
      ${texts}::text[] as t, ${numbers}::float8[] as f, ${[1, -2, null, 9007199254740991]}::int8[] as i, ${[true, false, null]}::bool[] as b`.execute(store.read)).rows;
    assert.deepEqual(rows, [{ t: texts, f: numbers, i: ['1', '-2', null, '9007199254740991'], b: [true, false, null] }]);
    // Arrays of plain texts, or of numbers or booleans alone, empty ones included.
    const plain = ['plain', 'with space', 'a,b', '{braced}', '', 'NULL', 'ünïcode €', 'line\nbreak', 'pair 😀'];
    const whole = (await sql<{ t: string[]; f: number[]; i: string[]; b: boolean[]; e: string[]; z: string[] }>`select
      ${plain}::text[] as t, ${[0, -2.5, 1e21, 0.1]}::float8[] as f, ${[1, 9007199254740991n, -2]}::int8[] as i, ${[true, false]}::bool[] as b,
      ${[]}::text[] as e, ${[]}::int8[] as z`.execute(store.read)).rows;
    assert.deepEqual(whole, [{ t: plain, f: [0, -2.5, 1e21, 0.1], i: ['1', '9007199254740991', '-2'], b: [true, false], e: [], z: [] }]);
    // Arrays of other values go as the driver sends them.
    const nested = (await sql<{ n: number[][] }>`select ${[[1, 2], [3, 4]]}::int[][] as n`.execute(store.read)).rows[0]!.n;
    assert.deepEqual(nested, [[1, 2], [3, 4]]);
  });

  it('gives a connection taken again as the same client, so that what is known of it is kept', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const preparing = new PreparingPool(pool);
    try {
      const first = await preparing.connect();
      first.release();
      const again = await preparing.connect();
      again.release();
      assert.equal(again, first);
    } finally {
      await preparing.end();
    }
  });

  it('keeps answering after a failed statement, in and out of transactions', async () => {
    for (let i = 0; i < 5; i++) {
      await assert.rejects(sql`select 1 / ${0}::int as v`.execute(store.read), /division by zero/);
      await assert.rejects(store.read.transaction().execute(async (trx) => {
        await sql`select 1 / ${0}::int as v`.execute(trx);
      }), /division by zero/);
      assert.equal((await sql<{ v: number }>`select ${i}::int + 1 as v`.execute(store.read)).rows[0]!.v, i + 1);
    }
  });
});
