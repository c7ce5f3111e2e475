import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { inSession } from '../../src/storage/prepared-query.js';
import { termIds } from '../../src/storage/postgres/reading-terms.js';
import { assetBody, create, readingsOf, timeInstant, update } from '../helpers/federation.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';
import { STORES, type StoreKind } from '../helpers/stores.js';

const ASSET = 'urn:oc:entity:santander:env:terms';

/** One test of `kind`'s numbering, on a platform whose site has the asset ASSET; skipped when the store is not tested. */
function onStore(kind: StoreKind, title: string, test: (p: TestPlatform, token: string) => Promise<void>): void {
  if (!STORES.includes(kind)) return;
  describe(`numbering of reading terms [${kind}]`, () => {
    let p: TestPlatform;
    before(async () => {
      p = await startPlatform(kind);
    });
    after(async () => {
      await p.close();
    });

    it(title, async () => {
      const token = await p.siteToken('santander');
      assert.equal((await create(p, token, assetBody(ASSET))).statusCode, 201);
      await test(p, token);
    });
  });
}

/** The numbers PostgreSQL's writer gives the terms of a reading of `term`, in a write transaction of its own. */
const numberIn = <T>(p: TestPlatform, term: string, then: (idOf: (term: string) => number | undefined) => T): Promise<T> =>
  p.ctx.store.writes.run((trx) => inSession(trx, p.ctx.store.dialect, async (session) => then(await termIds(session, [{ name: term, type: 'Number' }]))));

/** The type and value of each reading of `term` of ASSET. */
const valuesOf = async (p: TestPlatform, term: string) => (await readingsOf(p, ASSET)).filter((r) => r.attr_name === term).map((r) => [r.attr_type, r.attr_value]);

/**
 * PostgreSQL numbers a reading's new attribute name or type inside the write's
 * transaction (src/storage/postgres/reading-terms.ts): a name numbered by a
 * write that rolled back must be numbered again by the next, never taken as
 * there.
 */
onStore('postgres', 'stores the readings of a name whose first numbering rolled back, in the same transaction or the next', async (p, token) => {
  const failing = (term: string) => numberIn(p, term, () => {
    throw new Error('the write fails after numbering');
  });
  for (const term of ['rolled:back:once', 'rolled:back:twice']) {
    await assert.rejects(failing(term), /fails after numbering/);
    if (term.endsWith('twice')) await assert.rejects(failing(term), /fails after numbering/);
    const res = await update(p, token, ASSET, { TimeInstant: timeInstant(), [term]: { type: 'Number', value: 7 } });
    assert.equal(res.statusCode, 204, res.body);
    assert.deepEqual(await valuesOf(p, term), [['Number', '7']]);
  }
});

/**
 * A term that another transaction numbers and commits while the write waits
 * on it is in neither what the write's insert added nor what its snapshot
 * holds: the write still finds its number, and its reading is stored.
 */
onStore('postgres', 'stores the readings of a name another transaction numbered while the write waited for it', async (p, token) => {
  const other = new pg.Client({ connectionString: p.db.url });
  await other.connect();
  try {
    await other.query('begin');
    const { rows } = await other.query<{ id: number }>(`insert into reading_terms (term) values ('raced:name') returning id`);
    const numbered = numberIn(p, 'raced:name', (idOf) => idOf('raced:name'));
    // The write's insert of the term waits for the other transaction's.
    let waiting = 0;
    for (let tries = 0; waiting === 0 && tries < 10_000; tries++) {
      waiting = (await other.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0]?.n ?? 0;
    }
    assert.equal(waiting, 1);
    await other.query('commit');
    assert.equal(await numbered, rows[0]?.id);
  } finally {
    await other.end();
  }
  const res = await update(p, token, ASSET, { TimeInstant: timeInstant(), 'raced:name': { type: 'Number', value: 5 } });
  assert.equal(res.statusCode, 204, res.body);
  assert.deepEqual(await valuesOf(p, 'raced:name'), [['Number', '5']]);
});

/**
 * SQLite's writer keeps the numbers of the terms it has seen committed
 * (src/storage/sqlite/asset-writes.ts): a number given in a transaction that
 * rolled back, and then given to another term, must never be taken for the
 * first one.
 */
onStore('sqlite', 'stores the readings of a name whose first numbering rolled back after its number went to another name', async (p, token) => {
  const file = new SQLite(p.db.url.slice('sqlite:'.length));
  try {
    // The write fails after its readings numbered the new name: recording the asset's new attribute is refused.
    file.exec(`create trigger refuse_attribute before insert on asset_attributes when new.name = 'rolled:back' begin select raise(abort, 'refused'); end`);
    const refused = await update(p, token, ASSET, { TimeInstant: timeInstant(), 'rolled:back': { type: 'Number', value: 7 } });
    assert.notEqual(refused.statusCode, 204, refused.body);
    file.exec('drop trigger refuse_attribute');
  } finally {
    file.close();
  }
  // The number the rolled-back write had given is free again: the next new name takes it.
  assert.equal((await update(p, token, ASSET, { TimeInstant: timeInstant(), 'taken:after': { type: 'Number', value: 8 } })).statusCode, 204);
  assert.equal((await update(p, token, ASSET, { TimeInstant: timeInstant(), 'rolled:back': { type: 'Number', value: 9 } })).statusCode, 204);
  assert.equal((await update(p, token, ASSET, { TimeInstant: timeInstant(), 'taken:after': { type: 'Number', value: 10 } })).statusCode, 204);
  assert.deepEqual(await valuesOf(p, 'rolled:back'), [['Number', '9']]);
  assert.deepEqual(await valuesOf(p, 'taken:after'), [['Number', '8'], ['Number', '10']]);
});
