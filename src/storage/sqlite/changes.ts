import type { ChangeRecord } from '../../domain/changes.js';
import { COMMIT, PreparedQuery, rowRuns, type Session } from '../prepared-query.js';
import type { ChangeWrites, TransactionEnd } from '../ports.js';

/**
 * The changes of a transaction in one multi-row statement, in order
 * (AUTOINCREMENT numbers the rows in that order). SQLite's write lock already
 * orders commits, so seq order is commit order. The attributes are bound as
 * text: handing SQLite one JSON array of the batch to walk cost it twice as
 * much, re-reading and re-writing every attribute.
 */
const APPEND = new PreparedQuery<unknown[], never>((rows) => 6 * rows, (db, p, _dialect, rows) =>
  db.insertInto('changes').values(Array.from({ length: rows }, (_, i) => ({
    asset_id: p[6 * i], asset_type: p[6 * i + 1], site: p[6 * i + 2], kind: p[6 * i + 3], attrs: p[6 * i + 4], committed_at: p[6 * i + 5],
  }))));

/** Appends the changes; the seq of the last one. */
async function append(session: Session, changes: readonly ChangeRecord[]): Promise<number> {
  let last = 0;
  for (const chunk of rowRuns(changes)) {
    const result = await APPEND.runRows(session, chunk, (c) => [c.assetId, c.assetType, c.site, c.kind, JSON.stringify(c.attributes), c.at]);
    last = Number(result.insertId);
  }
  return last;
}

/** The append, then the commit once it has succeeded (SQLite runs in process: there is no round trip to save). */
function appendAndCommit(session: Session, changes: readonly ChangeRecord[]): TransactionEnd {
  const appended = changes.length > 0 ? append(session, changes) : Promise.resolve(undefined);
  return { appended, committed: appended.then(() => COMMIT.run(session, [])) };
}

export const sqliteChanges: ChangeWrites = { appendAndCommit };
