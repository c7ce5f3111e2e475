import type { Executor, SeriesWalk } from '../ports.js';

/** The rows of `readings` of a walk's asset (and attribute) received in its range. */
export function receivedIn(db: Executor, walk: Pick<SeriesWalk, 'assetSeq' | 'nameId' | 'range'>) {
  let q = db.selectFrom('readings').where('asset_seq', '=', walk.assetSeq);
  if (walk.nameId !== undefined) q = q.where('name_id', '=', walk.nameId);
  if (walk.range) q = q.where('recv_time', '>=', walk.range.from).where('recv_time', '<=', walk.range.to);
  return q;
}
