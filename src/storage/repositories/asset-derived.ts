import { sql } from 'kysely';
import { counterSegment } from '../../domain/activity.js';
import { PreparedQuery, type Session } from '../prepared-query.js';

/**
 * What every asset write keeps in step beside the asset's own row: its
 * readings (history), the catalogue of its attributes and of asset types, the
 * live-asset counters and the hourly activity buckets discovery reads.
 */

/** One reading per attribute of the request. */
export interface ReadingInput {
  name: string;
  type: string;
  /** The value as a string (JSON for non-strings). */
  value: string;
}

export interface CounterKey {
  site: string;
  service: string;
  provider: string;
  type: string;
}

export const counterKey = (a: { site: string; service: string | null; provider: string | null; type: string }): CounterKey =>
  ({ site: a.site, service: counterSegment(a.service), provider: counterSegment(a.provider), type: a.type });

export const CHUNK = 32;

/** Rows in chunks of at most CHUNK, so that a multi-row statement has few shapes to prepare. */
export function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** One reading row, of any asset. */
export interface ReadingRow {
  seq: number;
  recvTime: number;
  name: string;
  type: string;
  value: string;
}

/** Readings go in multi-row statements of at most this many rows. */
const READING_CHUNK = 128;

const READINGS = new PreparedQuery<unknown[], never>((rows) => 5 * rows, (db, p, _dialect, rows) =>
  db.insertInto('readings').values(Array.from({ length: rows }, (_, i) => ({
    asset_seq: p[5 * i], recv_time: p[5 * i + 1], attr_name: p[5 * i + 2], attr_type: p[5 * i + 3], attr_value: p[5 * i + 4],
  }))));

/** Appends readings of one or many assets, in few statements. */
export async function addReadingRows(session: Session, rows: ReadingRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += READING_CHUNK) {
    const chunk = rows.slice(i, i + READING_CHUNK);
    await READINGS.run(session, chunk.flatMap((r) => [r.seq, r.recvTime, r.name, r.type, r.value]), chunk.length);
  }
}

const ATTRIBUTE_TYPES = new PreparedQuery<unknown[], never>((rows) => 3 * rows, (db, p, _dialect, rows) =>
  db.insertInto('asset_attributes')
    .values(Array.from({ length: rows }, (_, i) => ({ asset_seq: p[3 * i], name: p[3 * i + 1], type: p[3 * i + 2] })))
    .onConflict((oc) => oc.columns(['asset_seq', 'name']).doUpdateSet((eb) => ({ type: eb.ref('excluded.type') }))));

/** An attribute (name and type) an asset carries. */
export interface AttributeRow {
  seq: number;
  name: string;
  type: string;
}

/** A statement may not upsert one row twice: a name repeated for an asset keeps its last type. */
export function latestAttributeRows(rows: AttributeRow[]): AttributeRow[] {
  const latest = new Map<string, AttributeRow>();
  for (const row of rows) latest.set(`${row.seq}\u0000${row.name}`, row);
  return [...latest.values()];
}

/** Attribute rows as three arrays (seqs, names, types), as PostgreSQL unnests them. */
export const attributeColumns = (rows: AttributeRow[]): [seqs: number[], names: string[], types: string[]] =>
  [rows.map((r) => r.seq), rows.map((r) => r.name), rows.map((r) => r.type)];

/**
 * Records the attributes (name and type) assets carry, a few rows a statement
 * (PostgreSQL's update batch writes them inside its one statement).
 */
export async function recordAttributeRows(session: Session, rows: AttributeRow[]): Promise<void> {
  for (const chunk of chunks(latestAttributeRows(rows))) {
    await ATTRIBUTE_TYPES.run(session, chunk.flatMap((r) => [r.seq, r.name, r.type]), chunk.length);
  }
}

type CounterParams = [site: string, service: string, provider: string, type: string];
const counterParams = (k: CounterKey): CounterParams => [k.site, k.service, k.provider, k.type];
/** One string for a counter and some hours, to group by. */
const counterId = (key: CounterKey, hours: readonly number[]): string => [...counterParams(key), ...hours].join('\u0000');

/**
 * The writes of one batch grouped by the counter (and hours) they move, with
 * how many fall in each group: one counter statement per group, not per write.
 */
export class Tally<T> {
  private readonly groups = new Map<string, { value: T; n: number }>();

  /** Counts one more under `key` and `hours`; `value` describes the group the first time. */
  add(key: CounterKey, hours: readonly number[], value: T): void {
    const id = counterId(key, hours);
    const group = this.groups.get(id);
    if (group) group.n += 1;
    else this.groups.set(id, { value, n: 1 });
  }

  groupsWithCounts(): Iterable<{ value: T; n: number }> {
    return this.groups.values();
  }
}

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

type ActivityColumns = [sites: string[], services: string[], providers: string[], types: string[], hours: number[]];
const activityRows = (rows: ReadonlyArray<{ key: CounterKey; hour: number }>): ActivityColumns =>
  [rows.map((r) => r.key.site), rows.map((r) => r.key.service), rows.map((r) => r.key.provider), rows.map((r) => r.key.type), rows.map((r) => r.hour)];

/** A counter's change in one activity hour. */
export interface ActivityDelta {
  key: CounterKey;
  hour: number;
  by: number;
}

/** A counter and hour that a batch's deltas took to zero (PostgreSQL gives int8 as text). */
export interface EmptiedActivity {
  site: string;
  service: string;
  provider: string;
  type: string;
  hour: number | string;
}

/** Moves of `n` assets of a counter from hour `from` to hour `to`, netted per counter and hour (zero nets left out). */
export function netActivityMoves(moves: Iterable<{ key: CounterKey; from: number; to: number; n: number }>): ActivityDelta[] {
  const net = new Map<string, ActivityDelta>();
  const add = (key: CounterKey, hour: number, by: number) => {
    const id = counterId(key, [hour]);
    const row = net.get(id);
    if (row) row.by += by;
    else net.set(id, { key, hour, by });
  };
  for (const { key, from, to, n } of moves) {
    add(key, from, -n);
    add(key, to, n);
  }
  return [...net.values()].filter((r) => r.by !== 0);
}

/** Deltas as six arrays (the counter's four columns, hours, changes), as PostgreSQL unnests them. */
export const activityDeltaColumns = (rows: readonly ActivityDelta[]): [...ActivityColumns, by: number[]] =>
  [...activityRows(rows), rows.map((r) => r.by)];

const DROP_EMPTY_ACTIVITIES = new PreparedQuery<ActivityColumns, never>(5, (_db, [sites, services, providers, types, hours]) =>
  sql`delete from asset_activity a
    using unnest(${sites}::text[], ${services}::text[], ${providers}::text[], ${types}::text[], ${hours}::int8[]) as m(site, service, provider, type, hour)
    where a.site = m.site and a.service = m.service and a.provider = m.provider and a.type = m.type and a.hour = m.hour and a.assets <= 0`);

/**
 * PostgreSQL: drops the hours a batch left empty. Most batches empty none (an
 * hour empties when its counter's last asset moves on): the statement runs
 * only when one did.
 */
export async function dropEmptiedActivities(session: Session, emptied: readonly EmptiedActivity[]): Promise<void> {
  if (emptied.length === 0) return;
  await DROP_EMPTY_ACTIVITIES.run(session, activityRows(emptied.map((e) => ({ key: e, hour: Number(e.hour) }))));
}

/**
 * Moves `n` assets of each counter from activity hour `from` to hour `to`,
 * group by group: on SQLite a statement costs a few microseconds in the
 * writer's thread (PostgreSQL's update batch nets the moves per counter and
 * hour and writes them inside its one statement).
 */
export async function moveActivity(session: Session, moves: Iterable<{ key: CounterKey; from: number; to: number; n: number }>): Promise<void> {
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

