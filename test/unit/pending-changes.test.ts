import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changesPageSize, MAX_CHANGES_PAGE, type ChangeRecord } from '../../src/domain/changes.js';
import { PendingChanges } from '../../src/storage/pending-changes.js';

const change = (assetId: string): ChangeRecord => ({ assetId, assetType: 't', site: 's', kind: 'update', attributes: {}, at: 0 });

describe('changes of a transaction', () => {
  it('keeps them in write order and empties on take', () => {
    const changes = new PendingChanges(true);
    changes.add(change('a'));
    changes.add(change('b'));
    assert.deepEqual(changes.take().map((c) => c.assetId), ['a', 'b']);
    assert.deepEqual(changes.take(), []);
  });

  it('drops the changes of a write that rolled back to its savepoint, and only those', () => {
    const changes = new PendingChanges(true);
    changes.add(change('a'));
    const mark = changes.mark;
    changes.add(change('b'));
    changes.add(change('c'));
    changes.rollbackTo(mark);
    changes.add(change('d'));
    assert.deepEqual(changes.take().map((c) => c.assetId), ['a', 'd']);
  });

  it('gathers nothing with the change log off', () => {
    const changes = new PendingChanges(false);
    changes.add(change('a'));
    assert.deepEqual(changes.take(), []);
  });

  it('bounds a page of changes to 1..1000', () => {
    assert.equal(changesPageSize(undefined), MAX_CHANGES_PAGE);
    assert.equal(changesPageSize(5000), 1000);
    assert.equal(changesPageSize(0), 1);
    assert.equal(changesPageSize(Number.NaN), MAX_CHANGES_PAGE);
    assert.equal(changesPageSize(20.7), 20);
  });
});
