import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { withStatementCache } from '../../src/storage/sqlite/statement-cache.js';

function store() {
  const conn = new Database(':memory:');
  conn.exec(`create table t (id integer primary key, name text, score real);
    insert into t (name, score) values ('a', 1.5), ('b', null), ('c', 3)`);
  return { conn, db: withStatementCache(conn) };
}

describe('statement cache', () => {
  it('gives rows as better-sqlite3 objects would be, column for column', () => {
    const { conn, db } = store();
    for (const sql of ['select * from t order by id', 'select name, id, score * 2 as double from t where id > ?', 'select count(*) from t where id > ?']) {
      const params = sql.includes('?') ? [1] : [];
      assert.deepEqual(db.prepare(sql).all(params), conn.prepare(sql).all(...params));
    }
    // Duplicate names: the last column wins, as in better-sqlite3.
    assert.deepEqual(db.prepare('select 1 as x, 2 as x').all([]), [{ x: 2 }]);
  });

  it('keeps a column named __proto__ an own property', () => {
    const { db } = store();
    const [row] = db.prepare('select 7 as "__proto__"').all([]) as Array<Record<string, unknown>>;
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepEqual(Object.getOwnPropertyDescriptor(row, '__proto__')?.value, 7);
  });

  it('iterates, runs writes, and prepares each text once', () => {
    const { db } = store();
    assert.deepEqual([...db.prepare('select name from t order by id').iterate([])], [{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const insert = db.prepare('insert into t (name) values (?)');
    assert.equal(insert.reader, false);
    assert.equal(insert.run(['d']).changes, 1);
    assert.equal(db.prepare('insert into t (name) values (?)'), insert);
    assert.deepEqual(db.prepare('insert into t (name) values (?) returning id').all(['e']), [{ id: 5 }]);
  });

  it('follows a change of columns after the schema changed', () => {
    const { conn, db } = store();
    const all = 'select * from t where id = ?';
    assert.deepEqual(db.prepare(all).all([1]), [{ id: 1, name: 'a', score: 1.5 }]);
    conn.exec('alter table t add column note text');
    assert.deepEqual(db.prepare(all).all([1]), [{ id: 1, name: 'a', score: 1.5, note: null }]);
  });
});
