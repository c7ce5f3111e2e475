import type { ChangeRecord } from '../domain/changes.js';

/**
 * The changes of one write transaction, gathered as its writes run and
 * appended to the change log together just before it commits: one statement
 * for the whole batch, and, on PostgreSQL, the change log's lock held only
 * from there to the commit. A write that rolls back to its savepoint takes
 * its changes back with it (`rollbackTo`). With the change log off, nothing is
 * gathered.
 */
export class PendingChanges {
  private rows: ChangeRecord[] = [];

  constructor(readonly enabled: boolean) {}

  add(record: ChangeRecord): void {
    if (this.enabled) this.rows.push(record);
  }

  /** A point to roll back to if the write that follows fails. */
  get mark(): number {
    return this.rows.length;
  }

  rollbackTo(mark: number): void {
    this.rows.length = mark;
  }

  /** The changes gathered so far, in write order; the buffer is empty afterwards. */
  take(): ChangeRecord[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }
}
