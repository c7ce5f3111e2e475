import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Store } from '../../src/storage/store.js';
import { createTestStore, STORES, type TestDatabase } from '../helpers/stores.js';

/**
 * PostgreSQL's batches commit one at a time, each in a transaction begun
 * while the one before commits (src/storage/postgres/committer.ts): writes
 * land as before, no transaction stays open on a server with nothing to
 * write, and a transaction begun ahead that was lost costs no write but its own.
 */
describe('transactions begun ahead on PostgreSQL', { skip: !STORES.includes('postgres') }, () => {
  let db: TestDatabase;
  let store: Store;
  let dispose: () => Promise<void>;

  before(async () => {
    ({ db, store, dispose } = await createTestStore('postgres'));
  });
  after(() => dispose());

  /** Sessions of the test's database open inside a transaction and waiting, seen from another connection. */
  const idleInTransaction = async (): Promise<number[]> => (await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()`.execute(store.read)).rows.map((r) => r.pid);

  /** Waits, a bounded number of turns, until no transaction is left open. */
  const untilNoneOpen = async (): Promise<number[]> => {
    let open = await idleInTransaction();
    for (let i = 0; i < 5000 && open.length > 0; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      open = await idleInTransaction();
    }
    return open;
  };

  const typeNamed = (id: string) => store.read.selectFrom('asset_types').select('id').where('id', '=', id).execute();
  const writeType = (id: string) => store.writes.run(async (trx) => {
    await trx.insertInto('asset_types').values({ id, description: '' }).execute();
    return id;
  });

  it('commits writes one after another, each visible once answered', async () => {
    for (let i = 0; i < 20; i++) {
      const id = `urn:oc:entityType:ahead${i}`;
      assert.equal(await writeType(id), id);
      assert.deepEqual(await typeNamed(id), [{ id }]);
    }
  });

  it('ends the transaction begun for a batch that does not come', async () => {
    await writeType('urn:oc:entityType:beforeIdle');
    assert.deepEqual(await untilNoneOpen(), []);
  });

  it('commits the batch after a transaction begun ahead was lost, and every one after', async () => {
    // The transaction begun ahead is looked for right after a write (it ends by itself soon after).
    let lost: number | undefined;
    for (let i = 0; i < 20 && lost === undefined; i++) {
      await writeType(`urn:oc:entityType:beforeLoss${i}`);
      [lost] = await idleInTransaction();
    }
    assert.notEqual(lost, undefined);
    await sql`select pg_terminate_backend(${lost})`.execute(store.read);
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      // A refusal is the store's being unavailable: answered 503.
      outcomes.push(await writeType(`urn:oc:entityType:afterLoss${i}`).then(() => 'written', (error: unknown) => `refused (${store.classifyError(error) ?? 'unknown'})`));
    }
    // At most the batch handed the lost transaction is refused (nothing of it written); the others are written.
    assert.ok(['written', 'refused (unavailable)'].includes(outcomes[0]!), outcomes.join());
    assert.ok(outcomes.slice(1).every((o) => o === 'written'), outcomes.join());
    for (let i = 0; i < 5; i++) {
      const id = `urn:oc:entityType:afterLoss${i}`;
      assert.deepEqual(await typeNamed(id), outcomes[i] === 'written' ? [{ id }] : []);
    }
  });

  it('leaves no transaction open once closed', async () => {
    const other = Store.open(db.url);
    await other.writes.run(async (trx) => {
      await trx.insertInto('asset_types').values({ id: 'urn:oc:entityType:beforeClose', description: '' }).execute();
    });
    await other.close();
    assert.deepEqual(await untilNoneOpen(), []);
  });
});
