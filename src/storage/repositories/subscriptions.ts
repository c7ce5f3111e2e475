import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Database, SubscriptionTable } from '../schema.js';
import type { Store } from '../store.js';

/**
 * Subscriptions and their delivery state. Plain SQL both stores run alike:
 * a lease is one conditional UPDATE (taken when free, expired or already
 * ours), so exactly one process delivers a subscription at a time, and every
 * write of delivery progress names the lease holder, so a process that lost
 * its lease writes nothing.
 */

export type SubscriptionRow = Selectable<SubscriptionTable>;

const NUMERIC = ['expires_at', 'created_at', 'cursor', 'times_sent', 'last_notification', 'last_success', 'last_success_code', 'last_failure', 'fails_counter', 'lease_until'] as const;

/** PostgreSQL returns bigints as text. */
function toRow(row: SubscriptionRow): SubscriptionRow {
  const out = { ...row } as Record<string, unknown>;
  for (const column of NUMERIC) if (out[column] !== null && out[column] !== undefined) out[column] = Number(out[column]);
  return out as unknown as SubscriptionRow;
}

/** What delivery writes back: progress and Orion's status fields. */
export type DeliveryProgress = Partial<Pick<SubscriptionRow, 'cursor' | 'status' | 'times_sent' | 'last_notification' | 'last_success' | 'last_success_code' | 'last_failure' | 'last_failure_reason' | 'fails_counter'>>;

export type SubscriptionChanges = Pick<SubscriptionRow, 'definition' | 'visible' | 'status' | 'expires_at'> & { fails_counter?: number };

const LIVE = ['active', 'oneshot'] as const;

/** Delivered at `now`: active or oneshot, and not expired. */
const liveAt = (now: number) => (eb: ExpressionBuilder<Database, 'subscriptions'>) =>
  eb.and([eb('status', 'in', LIVE), eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])]);

export async function insertSubscription(store: Store, row: Omit<SubscriptionRow, 'lease_holder' | 'lease_until'>): Promise<void> {
  await store.writes.run((trx) => trx.insertInto('subscriptions').values({ ...row, lease_holder: null, lease_until: null }).execute());
}

export async function countSubscriptions(store: Store, owner: string | undefined): Promise<number> {
  let query = store.read.selectFrom('subscriptions').select((eb) => eb.fn.countAll().as('n'));
  if (owner !== undefined) query = query.where('owner', '=', owner);
  const row = await query.executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function findSubscription(store: Store, id: string): Promise<SubscriptionRow | undefined> {
  const row = await store.read.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toRow(row);
}

/** A page of the subscriptions of `owner` (undefined: everyone's), oldest first. */
export async function listSubscriptions(store: Store, owner: string | undefined, limit: number, offset: number): Promise<SubscriptionRow[]> {
  let query = store.read.selectFrom('subscriptions').selectAll();
  if (owner !== undefined) query = query.where('owner', '=', owner);
  const rows = await query.orderBy('created_at').orderBy('id').limit(limit).offset(offset).execute();
  return rows.map(toRow);
}

export async function updateSubscription(store: Store, id: string, changes: SubscriptionChanges): Promise<boolean> {
  const result = await store.writes.run((trx) => trx.updateTable('subscriptions').set(changes).where('id', '=', id).executeTakeFirst());
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteSubscription(store: Store, id: string): Promise<boolean> {
  const result = await store.writes.run((trx) => trx.deleteFrom('subscriptions').where('id', '=', id).executeTakeFirst());
  return Number(result.numDeletedRows) > 0;
}

/** The subscriptions that may notify now: active or oneshot, not expired. */
export async function liveSubscriptions(store: Store, now: number): Promise<SubscriptionRow[]> {
  const rows = await store.read.selectFrom('subscriptions').selectAll()
    .where(liveAt(now))
    .execute();
  return rows.map(toRow);
}

/**
 * Takes the lease of a live subscription when it is free, expired, already
 * `holder`'s, or `gone`'s (a holder known to have died); the row as taken, or
 * undefined. One that stopped being live since it was read (it turned
 * inactive while a look was under way) is not taken up again.
 */
export async function claimLease(store: Store, id: string, holder: string, now: number, until: number, gone?: string): Promise<SubscriptionRow | undefined> {
  const taken = await store.writes.run(async (trx) => {
    const result = await trx.updateTable('subscriptions').set({ lease_holder: holder, lease_until: until })
      .where('id', '=', id)
      .where(liveAt(now))
      .where((eb) => eb.or([eb('lease_holder', 'is', null), eb('lease_holder', '=', holder), eb('lease_until', '<', now), eb('lease_holder', '=', gone ?? holder)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  });
  return taken && toRow(taken);
}

/** Extends the leases `holder` still has among `ids`; the ids it still holds. */
export async function renewLeases(store: Store, holder: string, ids: readonly string[], until: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  return store.writes.run(async (trx) => {
    await trx.updateTable('subscriptions').set({ lease_until: until }).where('lease_holder', '=', holder).where('id', 'in', ids).execute();
    const rows = await trx.selectFrom('subscriptions').select('id').where('lease_holder', '=', holder).where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  });
}

/** Gives up the leases of `holder` (a process stopping), so that another takes them over at once. */
export async function releaseLeases(store: Store, holder: string): Promise<void> {
  await store.writes.run((trx) => trx.updateTable('subscriptions').set({ lease_holder: null, lease_until: null }).where('lease_holder', '=', holder).execute());
}

/** Writes delivery progress, if `holder` still holds the lease; whether it did. */
export async function saveProgress(store: Store, id: string, holder: string, progress: DeliveryProgress): Promise<boolean> {
  const result = await store.writes.run((trx) => trx.updateTable('subscriptions').set(progress).where('id', '=', id).where('lease_holder', '=', holder).executeTakeFirst());
  return Number(result.numUpdatedRows) > 0;
}

/** Writes the progress of several subscriptions in one transaction, each if `holder` still holds its lease; the ids it did not write. */
export async function saveProgressOf(store: Store, holder: string, batch: ReadonlyArray<{ id: string; progress: DeliveryProgress }>): Promise<string[]> {
  return store.writes.run(async (trx) => {
    const lost: string[] = [];
    for (const { id, progress } of batch) {
      const result = await trx.updateTable('subscriptions').set(progress).where('id', '=', id).where('lease_holder', '=', holder).executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) lost.push(id);
    }
    return lost;
  });
}

/** The lowest cursor of the live subscriptions (what pruning keeps after), or undefined when there is none. */
export async function lowestLiveCursor(store: Store, now: number): Promise<number | undefined> {
  const row = await store.read.selectFrom('subscriptions').select((eb) => eb.fn.min('cursor').as('low'))
    .where(liveAt(now))
    .executeTakeFirst();
  return row?.low === null || row?.low === undefined ? undefined : Number(row.low);
}

/** The asset states notifications show, by asset id (the latest row of each id, deleted ones included). */
export async function assetStates(store: Store, ids: readonly string[]): Promise<Map<string, { attrs: string; site: string; experimenter: string | null; experiment: string | null; latitude: number; longitude: number }>> {
  const out = new Map<string, { attrs: string; site: string; experimenter: string | null; experiment: string | null; latitude: number; longitude: number }>();
  if (ids.length === 0) return out;
  const rows = await store.read.selectFrom('assets')
    .select(['id', 'attrs', 'site', 'experimenter', 'experiment', 'latitude', 'longitude'])
    .where('id', 'in', ids).orderBy('seq').execute();
  for (const row of rows) out.set(row.id, row);
  return out;
}
