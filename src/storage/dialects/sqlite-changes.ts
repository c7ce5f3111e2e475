import { sql } from 'kysely';
import type { ChangeRecord } from '../../domain/changes.js';
import { PreparedQuery, type Session } from '../prepared-query.js';

/**
 * All the changes of a transaction in one statement, whatever their number:
 * they come as one JSON array, which SQLite walks in order (AUTOINCREMENT
 * numbers the rows in that order). SQLite's write lock already orders
 * commits, so seq order is commit order.
 */
const APPEND = new PreparedQuery<[rows: string], never>(1, (_db, [rows]) => sql`
  insert into changes (asset_id, asset_type, site, kind, attrs, committed_at)
  select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value -> 4, value ->> 5 from json_each(${rows}) order by key`);

/** Appends the changes; the seq of the last one. */
export async function appendSqliteChanges(session: Session, changes: readonly ChangeRecord[]): Promise<number> {
  const rows = JSON.stringify(changes.map((c) => [c.assetId, c.assetType, c.site, c.kind, c.attributes, c.at]));
  const result = await APPEND.run(session, [rows]);
  return Number(result.insertId);
}
