import { activityHour } from '../../domain/activity.js';
import { counterKey, type CounterKey, type HourMove } from '../../domain/asset-counters.js';
import type { AssetDeletion } from '../../domain/asset-writes.js';
import { deletedChange, type ChangeSink } from '../../domain/changes.js';
import { PreparedQuery, type Session } from '../prepared-query.js';

/**
 * The counters discovery reads (live assets per site, service, provider and
 * type; per hour of their last reading), the asset types, and the delete that
 * moves them: plain statements both stores run alike.
 */

type CounterParams = [site: string, service: string, provider: string, type: string];
const counterParams = (k: CounterKey): CounterParams => [k.site, k.service, k.provider, k.type];

const INCREMENT_COUNT = new PreparedQuery<[...CounterParams, by: number], never>(5, (db, [site, service, provider, type, by]) =>
  db.insertInto('asset_counts').values({ site, service, provider, type, assets: by })
    .onConflict((oc) => oc.columns(['site', 'service', 'provider', 'type']).doUpdateSet((eb) => ({ assets: eb('asset_counts.assets', '+', eb.ref('excluded.assets')) }))));
const DECREMENT_COUNT = new PreparedQuery<CounterParams, never>(4, (db, [site, service, provider, type]) =>
  db.updateTable('asset_counts').set((eb) => ({ assets: eb('assets', '-', 1) })).where((eb) => eb.and({ site, service, provider, type })));
const DROP_EMPTY_COUNT = new PreparedQuery<CounterParams, never>(4, (db, [site, service, provider, type]) =>
  db.deleteFrom('asset_counts').where((eb) => eb.and({ site, service, provider, type })).where('assets', '<=', 0));

type ActivityParams = [...CounterParams, hour: number];
const INCREMENT_ACTIVITY = new PreparedQuery<[...ActivityParams, by: number], never>(6, (db, [site, service, provider, type, hour, by]) =>
  db.insertInto('asset_activity').values({ site, service, provider, type, hour, assets: by })
    .onConflict((oc) => oc.columns(['site', 'service', 'provider', 'type', 'hour']).doUpdateSet((eb) => ({ assets: eb('asset_activity.assets', '+', eb.ref('excluded.assets')) }))));
const DECREMENT_ACTIVITY = new PreparedQuery<[...ActivityParams, by: number], never>(6, (db, [site, service, provider, type, hour, by]) =>
  db.updateTable('asset_activity').set((eb) => ({ assets: eb('assets', '-', by) })).where((eb) => eb.and({ site, service, provider, type, hour })));
const DROP_EMPTY_ACTIVITY = new PreparedQuery<ActivityParams, never>(5, (db, [site, service, provider, type, hour]) =>
  db.deleteFrom('asset_activity').where((eb) => eb.and({ site, service, provider, type, hour })).where('assets', '<=', 0));

/** `by`: the writes of one batch under one key (and hour) count in one statement. */
export async function incrementCount(session: Session, key: CounterKey, by = 1): Promise<void> {
  await INCREMENT_COUNT.run(session, [...counterParams(key), by]);
}

export async function decrementCount(session: Session, key: CounterKey): Promise<void> {
  await DECREMENT_COUNT.run(session, counterParams(key));
  await DROP_EMPTY_COUNT.run(session, counterParams(key));
}

export async function incrementActivity(session: Session, key: CounterKey, hour: number, by = 1): Promise<void> {
  await INCREMENT_ACTIVITY.run(session, [...counterParams(key), hour, by]);
}

export async function decrementActivity(session: Session, key: CounterKey, hour: number, by = 1): Promise<void> {
  await DECREMENT_ACTIVITY.run(session, [...counterParams(key), hour, by]);
  await DROP_EMPTY_ACTIVITY.run(session, [...counterParams(key), hour]);
}

/**
 * Moves `n` assets of each counter from activity hour `from` to hour `to`,
 * group by group, dropping the hours left empty.
 */
export async function moveActivity(session: Session, moves: Iterable<HourMove>): Promise<void> {
  for (const { key, from, to, n } of moves) {
    await decrementActivity(session, key, from, n);
    await incrementActivity(session, key, to, n);
  }
}

const REGISTER_TYPE = new PreparedQuery<[type: string], never>(1, (db, [type]) =>
  db.insertInto('asset_types').values({ id: type, description: '' }).onConflict((oc) => oc.column('id').doNothing()));

/** Registers a type discovery has not seen yet (empty description until the dictionary fills it). */
export async function registerType(session: Session, type: string): Promise<void> {
  await REGISTER_TYPE.run(session, [type]);
}

type DeletedAsset = { seq: number; site: string; service: string | null; provider: string | null; type: string; last_reading_at: number };

/** Variant 1 also requires the type (`?type=`). */
const MARK_DELETED = new PreparedQuery<[now: number, id: string, type: string | undefined], DeletedAsset>(3, (db, [now, id, type], _dialect, withType) => {
  let query = db.updateTable('assets').set({ deleted_at: now }).where('id', '=', id).where('deleted_at', 'is', null);
  if (withType === 1) query = query.where('type', '=', type);
  return query.returning(['seq', 'site', 'service', 'provider', 'type', 'last_reading_at']);
});

/**
 * Takes live assets out of discovery (their readings stay), one by one in
 * order; false for one that does not exist (or has another type than its
 * `expectedType`). Each delete records its change. `unindex` takes a deleted asset out of indexes of live
 * positions that are not on its row.
 */
export async function deleteAssets(
  session: Session, inputs: readonly AssetDeletion[], changes: ChangeSink, unindex?: (session: Session, seq: number) => Promise<void>,
): Promise<boolean[]> {
  const found: boolean[] = [];
  for (const deletion of inputs) {
    const { id, expectedType, now } = deletion;
    const row = (await MARK_DELETED.run(session, [now, id, expectedType], expectedType === undefined ? 0 : 1)).rows[0];
    if (!row) {
      found.push(false);
      continue;
    }
    const key = counterKey(row);
    await decrementCount(session, key);
    await decrementActivity(session, key, activityHour(Number(row.last_reading_at)));
    await unindex?.(session, Number(row.seq));
    changes.add(deletedChange(deletion, row));
    found.push(true);
  }
  return found;
}
