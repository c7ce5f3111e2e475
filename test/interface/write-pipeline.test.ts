import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { parseAssetUrn } from '../../src/domain/urn.js';
import type { CreateInput } from '../../src/domain/asset-writes.js';
import { findLiveAsset } from '../../src/storage/repositories/assets.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';
import { runTs } from '../helpers/cli.js';
import { STORES, createTestDatabase, createTestStore, type StoreKind } from '../helpers/stores.js';

/**
 * The write pipeline as the federation uses it: typed asset writes (on a
 * SQLite file store, a batch of them runs whole in the writer's thread) and
 * jobs (statement by statement), in the order queued, each committed whole or
 * not at all.
 */

const SITE = 'santander';
const NOW = Date.UTC(2026, 10, 1);
const assetId = (name: string) => `urn:oc:entity:${SITE}:environment:queue:${name}`;

function creation(name: string, recordedAt: number = NOW): CreateInput {
  const id = assetId(name);
  const attributes = { temperature: { type: 'urn:oc:attributeType:temperature', value: '21.5', metadata: {} } };
  return {
    asset: {
      id, type: 'urn:oc:entityType:thermometer', urn: parseAssetUrn(id, SITE), attributes, position: undefined,
      recordedAt, receivedAt: NOW,
    },
    registerType: true,
    defaultQuota: 100,
  };
}

/** Creates queued in one turn: one batch, whose creates are written by one call (they fail together). */
const create = (store: Store, ...inputs: CreateInput[]) => Promise.all(inputs.map((input) => store.writes.write({ kind: 'create', input })));
const addType = (store: Store, id: string) => store.writes.run((trx) => trx.insertInto('asset_types').values({ id, description: '' }).execute());

/**
 * Runs `test` while the store refuses, by a trigger named `name`, to insert or update a row of
 * `table` whose `column` ends with `suffix`, with the error `message`, then takes the trigger away.
 */
async function whileRefusing<T>(
  store: Store, kind: StoreKind, refusal: { name: string; on: 'insert' | 'update'; table: string; column: string; suffix: string; message: string }, test: () => Promise<T>,
): Promise<T> {
  const { name, on, table, column, suffix, message } = refusal;
  const statements = kind === 'sqlite'
    ? [`create trigger ${name} before ${on} on ${table} when new.${column} like '%${suffix}' begin select raise(abort, '${message}'); end`]
    : [
      `create function ${name}() returns trigger language plpgsql as $$ begin raise exception '${message}'; end $$`,
      `create trigger ${name} before ${on} on ${table} for each row when (new.${column} like '%${suffix}') execute function ${name}()`,
    ];
  const removals = kind === 'sqlite' ? [`drop trigger ${name}`] : [`drop trigger ${name} on ${table}`, `drop function ${name}()`];
  const run = (statement: string) => store.writes.run((trx) => sql.raw(statement).execute(trx));
  for (const statement of statements) await run(statement);
  try {
    return await test();
  } finally {
    for (const statement of removals) await run(statement);
  }
}

for (const kind of STORES) {
  describe(`write pipeline [${kind}]`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ store, dispose } = await createTestStore(kind));
      await upsertSite(store, { id: SITE, name: 'Santander', type: 'city', latitude: 43.46, longitude: -3.8, countryCode: 'ES', country: 'Spain', city: 'Santander', quota: null }, NOW);
    });
    after(() => dispose());

    it('writes nothing of an operation that fails part-way, and goes on after it', async () => {
      // The second create breaks a NOT NULL constraint after the first has been inserted.
      const broken = creation('broken', null as unknown as number);
      await assert.rejects(create(store, creation('first'), broken), (error: Error & { code?: string }) => {
        assert.match(String(error.code), kind === 'sqlite' ? /^SQLITE_CONSTRAINT/ : /^23/);
        return true;
      });
      assert.equal(await findLiveAsset(store, assetId('first')), undefined);
      assert.equal(await findLiveAsset(store, assetId('broken')), undefined);
      assert.deepEqual(await create(store, creation('after')), [{ kind: 'created', seq: (await store.read.selectFrom('assets').select('seq').where('id', '=', assetId('after')).executeTakeFirstOrThrow()).seq }]);
    });

    it('writes nothing of a batch whose changes the change log refuses, and goes on after it', async () => {
      const changesOf = (name: string) => store.read.selectFrom('changes').select('kind').where('asset_id', '=', assetId(name)).execute();
      await whileRefusing(store, kind, { name: 'refuse_change', on: 'insert', table: 'changes', column: 'asset_id', suffix: ':refused', message: 'change refused' }, async () => {
        await assert.rejects(create(store, creation('refused')), /change refused/);
        assert.equal(await findLiveAsset(store, assetId('refused')), undefined);
        assert.deepEqual(await changesOf('refused'), []);
        await create(store, creation('accepted'));
        assert.ok(await findLiveAsset(store, assetId('accepted')));
        assert.deepEqual(await changesOf('accepted'), [{ kind: 'create' }]);
      });
    });

    it('writes nothing of a batch of updates whose write fails, and goes on after it', async () => {
      const update = (name: string, value: string) => store.writes.write({
        kind: 'update',
        input: {
          id: assetId(name), expectedType: undefined, position: undefined, recordedAt: NOW + 1000, receivedAt: NOW + 1000,
          changes: { temperature: { type: 'urn:oc:attributeType:temperature', value, metadata: {} } },
        },
      });
      const temperatureOf = async (name: string) => {
        const stored = await findLiveAsset(store, assetId(name));
        return stored ? (JSON.parse(stored.attrs) as Record<string, { value: unknown }>)['temperature']?.value : undefined;
      };
      const updatesOf = (name: string) => store.read.selectFrom('changes').select('kind').where('asset_id', '=', assetId(name)).where('kind', '=', 'update').execute();
      await create(store, creation('refusedUpdate'), creation('acceptedUpdate'));
      await whileRefusing(store, kind, { name: 'refuse_update', on: 'update', table: 'assets', column: 'id', suffix: ':refusedUpdate', message: 'update refused' }, async () => {
        await assert.rejects(update('refusedUpdate', '30.5'), /update refused/);
        assert.equal(await temperatureOf('refusedUpdate'), '21.5');
        assert.deepEqual(await updatesOf('refusedUpdate'), []);
        assert.equal(await update('acceptedUpdate', '30.5'), 'updated');
        assert.equal(await temperatureOf('acceptedUpdate'), '30.5');
        assert.deepEqual(await updatesOf('acceptedUpdate'), [{ kind: 'update' }]);
      });
    });

    it('runs operations and jobs in the order they were queued', async () => {
      const seen: string[] = [];
      const live = (name: string) => store.writes.run(async (trx) => {
        const row = await trx.selectFrom('assets').select('id').where('id', '=', assetId(name)).where('deleted_at', 'is', null).executeTakeFirst();
        seen.push(`${name}:${row ? 'live' : 'absent'}`);
      });
      const remove = (name: string) => store.writes.write({ kind: 'delete', input: { id: assetId(name), expectedType: undefined, now: NOW + 1 } });
      // All queued in one turn: each sees what those before it wrote.
      const results = await Promise.all([
        live('ordered'), create(store, creation('ordered')), live('ordered'), remove('ordered'), live('ordered'), remove('ordered'),
      ]);
      assert.deepEqual(seen, ['ordered:absent', 'ordered:live', 'ordered:absent']);
      assert.equal(results[3], true);
      assert.equal(results[5], false);
    });

    it('tells a duplicate key from an outage', async () => {
      await addType(store, 'urn:oc:entityType:queueProbe');
      const error = await addType(store, 'urn:oc:entityType:queueProbe').then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof Error);
      assert.equal(store.dialect.isUniqueViolation(error), true);
      assert.equal(store.isUnavailable(error), false);
    });

    it('refuses writes once the store is closed, instead of waiting for ever', async () => {
      const db = await createTestDatabase(kind);
      const closed = Store.open(db.url);
      try {
        await closed.migrate();
        await closed.close();
        await assert.rejects(create(closed, creation('late')));
        await assert.rejects(addType(closed, 'urn:oc:entityType:late'));
      } finally {
        await db.drop();
      }
    });

    if (kind === 'sqlite') {
      it('reports the store unavailable, not ready, if the writer\'s thread ends', async () => {
        const db = await createTestDatabase(kind);
        const broken = Store.open(db.url);
        try {
          await broken.migrate();
          assert.equal(await broken.ping(), true);
          // What an unexpected end of the thread looks like (it has no way to end on its own).
          await (broken as unknown as { parts: { committer: { thread: { worker: { terminate(): Promise<number> } } } } }).parts.committer.thread.worker.terminate();
          const error = await addType(broken, 'urn:oc:entityType:afterEnd').then(() => undefined, (e: unknown) => e);
          assert.ok(error instanceof Error);
          assert.equal(broken.isUnavailable(error), true);
          await assert.rejects(create(broken, creation('afterEnd')), (e: Error) => broken.isUnavailable(e));
          assert.equal(await broken.ping(), false);
        } finally {
          await broken.close();
          await db.drop();
        }
      });

      it('lets a process that never closes its store end once its writes are answered', async () => {
        const db = await createTestDatabase(kind);
        try {
          const run = await runTs('test/helpers/unclosed-store.ts', [db.url], {}, 30_000);
          assert.equal(run.code, 0, run.stderr);
          assert.equal(run.stdout, 'written\n');
          const check = Store.open(db.url);
          try {
            assert.ok(await check.read.selectFrom('asset_types').select('id').where('id', '=', 'urn:oc:entityType:unclosed').executeTakeFirst());
          } finally {
            await check.close();
          }
        } finally {
          await db.drop();
        }
      });
    }
  });
}
