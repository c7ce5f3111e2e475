import type { Transaction } from 'kysely';
import { activityHour } from '../../domain/activity.js';
import { mergeAttributes, type NgsiAttribute, type NgsiAttributes } from '../../domain/asset-body.js';
import type { Position } from '../../domain/position.js';
import type { AssetUrn } from '../../domain/urn.js';
import type { DialectAdapter } from '../dialects/adapter.js';
import { inSession, PreparedQuery, type Session } from '../prepared-query.js';
import {
  addReadingRows, addReadings, CHUNK, chunks, counterKey, decrementActivity, decrementCount, incrementActivity, incrementCount,
  recordAttributeRows, recordAttributeTypes, type CounterKey, type ReadingInput, type ReadingRow,
} from './asset-derived.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';

/**
 * The asset write path: every create, update and delete changes the asset's
 * current state, its history (readings), the attribute and type catalogues and
 * the counters discovery reads, all in the one transaction the write queue
 * gives it — nothing is ever half-written.
 */
type Trx = Transaction<Database>;

export { registerAssetType, type ReadingInput } from './asset-derived.js';

export interface NewAsset {
  id: string;
  type: string;
  urn: AssetUrn;
  attributes: NgsiAttributes;
  /** From the request's attributes; undefined: the site's centre. */
  position: Position | undefined;
  recordedAt: number;
  receivedAt: number;
  readings: ReadingInput[];
}

export type CreateOutcome =
  | { kind: 'created'; seq: number }
  | { kind: 'exists' }
  | { kind: 'quota-reached'; quota: number }
  | { kind: 'no-site' };

export interface AssetChange {
  id: string;
  /** `?type=` of the request: when given, the asset must have that type (as Orion). */
  expectedType: string | undefined;
  changes: NgsiAttributes;
  /** A new position when the request carries one. */
  position: Position | undefined;
  recordedAt: number;
  receivedAt: number;
  readings: ReadingInput[];
}

/**
 * The site row with its count of live assets. On PostgreSQL the row is locked
 * until the transaction ends (several processes may create for one site at
 * once), and the count is read by a second statement once the lock is held:
 * a statement sees what was committed when it began, so counting in the
 * locking statement would miss the creates of the transaction it waited for.
 * SQLite's write lock already serializes writers: one statement does.
 */
type SiteRow = { quota: number | null; latitude: number; longitude: number; assets?: number | string | null };

const SITE_WITH_COUNT = new PreparedQuery<[site: string], SiteRow>(1, (db, [site]) =>
  db.selectFrom('sites')
    .select((eb) => [
      'quota', 'latitude', 'longitude',
      eb.selectFrom('asset_counts').where('asset_counts.site', '=', site)
        .select((c) => c.fn.coalesce(c.fn.sum<number>('asset_counts.assets'), c.lit(0)).as('n')).as('assets'),
    ])
    .where('id', '=', site));

const LOCK_SITE = new PreparedQuery<[site: string], SiteRow>(1, (db, [site]) =>
  db.selectFrom('sites').select(['quota', 'latitude', 'longitude']).where('id', '=', site).forUpdate());

const COUNT_SITE = new PreparedQuery<[site: string], { assets: number | string | null }>(1, (db, [site]) =>
  db.selectFrom('asset_counts').where('site', '=', site).select((c) => c.fn.coalesce(c.fn.sum<number>('assets'), c.lit(0)).as('assets')));

async function siteForCreate(session: Session, site: string): Promise<SiteRow | undefined> {
  if (session.dialect === 'sqlite') return (await SITE_WITH_COUNT.run(session, [site])).rows[0];
  const row = (await LOCK_SITE.run(session, [site])).rows[0];
  if (!row) return undefined;
  return { ...row, assets: (await COUNT_SITE.run(session, [site])).rows[0]?.assets ?? 0 };
}

/** Inserts the asset, or revives a deleted row with that id; no row back when a live asset has it. */
const UPSERT_ASSET = new PreparedQuery<[
  id: string, type: string, site: string, service: string | null, provider: string | null, grp: string | null, name: string,
  experimenter: string | null, experiment: string | null, attrs: string, latitude: number, longitude: number, recordedAt: number, receivedAt: number,
], { seq: number }>(14, (db, [id, type, site, service, provider, grp, name, experimenter, experiment, attrs, latitude, longitude, recordedAt, receivedAt]) => {
  const state = {
    type, site, service, provider, grp, name, experimenter, experiment, attrs, latitude, longitude,
    recorded_at: recordedAt, last_reading_at: receivedAt, created_at: receivedAt, deleted_at: null,
  };
  return db.insertInto('assets').values({ id, ...state })
    .onConflict((oc) => oc.column('id').doUpdateSet(state).where('assets.deleted_at', 'is not', null))
    .returning('seq');
});

/*
 * PostgreSQL answers each statement over the network: on its hot paths several
 * writes go in one statement (data-modifying CTEs), which SQLite, in process
 * and without such CTEs, does not need.
 */

/** After a create: readings, attribute catalogue, live-asset count and activity bucket at once. */
const CREATE_TAIL = new PreparedQuery<unknown[], never>((rows) => 7 + 3 * rows, (db, p, _dialect, rows) => {
  const [seq, receivedAt, site, service, provider, type, hour] = p;
  const at = (i: number, k: number) => p[7 + 3 * i + k];
  return db
    .with('readings_added', (q) => q.insertInto('readings').values(Array.from({ length: rows }, (_, i) => ({
      asset_seq: seq, attr_name: at(i, 0), recv_time: receivedAt, attr_type: at(i, 1), attr_value: at(i, 2),
    }))).returning('seq'))
    .with('attributes_added', (q) => q.insertInto('asset_attributes')
      .values(Array.from({ length: rows }, (_, i) => ({ asset_seq: seq, name: at(i, 0), type: at(i, 1) })))
      .onConflict((oc) => oc.columns(['asset_seq', 'name']).doUpdateSet((eb) => ({ type: eb.ref('excluded.type') })))
      .returning('asset_seq'))
    .with('counted', (q) => q.insertInto('asset_counts').values({ site, service, provider, type, assets: 1 })
      .onConflict((oc) => oc.columns(['site', 'service', 'provider', 'type']).doUpdateSet((eb) => ({ assets: eb('asset_counts.assets', '+', 1) })))
      .returning('assets'))
    .insertInto('asset_activity').values({ site, service, provider, type, hour, assets: 1 })
    .onConflict((oc) => oc.columns(['site', 'service', 'provider', 'type', 'hour']).doUpdateSet((eb) => ({ assets: eb('asset_activity.assets', '+', 1) })));
});

const CHUNKABLE = (n: number) => n > 0 && n <= CHUNK;

/**
 * Creates the asset, or revives a deleted one with that id (fresh attributes,
 * same seq, so its history stays attached). The quota counts live assets.
 */
export async function createAssetRecord(trx: Trx, adapter: DialectAdapter, input: NewAsset, defaultQuota: number): Promise<CreateOutcome> {
  const created = await inSession(trx, adapter.name, async (session): Promise<CreateOutcome & { position?: Position }> => {
    const site = await siteForCreate(session, input.urn.site);
    if (!site) return { kind: 'no-site' };
    const quota = site.quota ?? defaultQuota;
    if (Number(site.assets ?? 0) >= quota) return { kind: 'quota-reached', quota };

    const position = input.position ?? { latitude: site.latitude, longitude: site.longitude };
    const { urn } = input;
    const row = (await UPSERT_ASSET.run(session, [
      input.id, input.type, urn.site, urn.service, urn.provider, urn.group, urn.name, urn.experimenter, urn.experiment,
      JSON.stringify(input.attributes), position.latitude, position.longitude, input.recordedAt, input.receivedAt,
    ])).rows[0];
    if (!row) return { kind: 'exists' };
    const seq = Number(row.seq);

    const key = counterKey({ ...urn, type: input.type });
    const hour = activityHour(input.receivedAt);
    if (session.dialect === 'postgres' && CHUNKABLE(input.readings.length)) {
      await CREATE_TAIL.run(session, [seq, input.receivedAt, key.site, key.service, key.provider, key.type, hour,
        ...input.readings.flatMap((r) => [r.name, r.type, r.value])], input.readings.length);
    } else {
      await addReadings(session, seq, input.receivedAt, input.readings);
      await recordAttributeTypes(session, seq, Object.entries(input.attributes));
      await incrementCount(session, key);
      await incrementActivity(session, key, hour);
    }
    return { kind: 'created', seq, position };
  });
  if (created.kind !== 'created' || !created.position) return created;
  await adapter.indexPosition(trx, created.seq, created.position.longitude, created.position.latitude);
  return { kind: 'created', seq: created.seq };
}

interface CurrentAsset {
  seq: number;
  type: string;
  site: string;
  service: string | null;
  provider: string | null;
  attrs: string;
  latitude: number;
  longitude: number;
  last_reading_at: number;
}

/** The live assets to update; on PostgreSQL locked, as another process may update them at once. */
const CURRENT_ASSETS = new PreparedQuery<string[], CurrentAsset & { id: string }>((n) => n, (db, ids, dialect, n) => {
  const query = db.selectFrom('assets')
    .select(['id', 'seq', 'type', 'site', 'service', 'provider', 'attrs', 'latitude', 'longitude', 'last_reading_at'])
    .where('id', 'in', ids.slice(0, n)).where('deleted_at', 'is', null);
  return dialect === 'postgres' ? query.forUpdate() : query;
});

const WRITE_STATE = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number], never>(4, (db, [seq, attrs, recordedAt, receivedAt]) =>
  db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt }).where('seq', '=', seq));

const WRITE_STATE_AND_POSITION = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number, latitude: number, longitude: number], never>(6,
  (db, [seq, attrs, recordedAt, receivedAt, latitude, longitude]) =>
    db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt, latitude, longitude }).where('seq', '=', seq));

/** An asset as the updates of one batch leave it, before it is written back once. */
interface Working {
  row: CurrentAsset;
  attrs: Record<string, NgsiAttribute>;
  recordedAt: number;
  lastReadingAt: number;
  latitude: number;
  longitude: number;
  changed: boolean;
  moved: boolean;
}

/**
 * Applies updates in order (append semantics: attributes replaced or added),
 * each to a live asset; `false` for an update whose asset does not exist (or
 * has another type than its `expectedType`), which writes nothing. A batch
 * reads its assets in one statement, writes each changed asset once, and
 * appends all its readings in a few multi-row statements.
 */
export async function updateAssetRecords(trx: Trx, adapter: DialectAdapter, inputs: AssetChange[]): Promise<boolean[]> {
  const done = await inSession(trx, adapter.name, async (session) => {
    const assets = new Map<string, Working>();
    for (const ids of chunks([...new Set(inputs.map((i) => i.id))])) {
      for (const row of (await CURRENT_ASSETS.run(session, ids, ids.length)).rows) {
        assets.set(row.id, {
          row, attrs: JSON.parse(row.attrs) as Record<string, NgsiAttribute>, recordedAt: 0,
          lastReadingAt: Number(row.last_reading_at), latitude: row.latitude, longitude: row.longitude, changed: false, moved: false,
        });
      }
    }

    const found: boolean[] = [];
    const readings: ReadingRow[] = [];
    const attributes: Array<{ seq: number; name: string; type: string }> = [];
    const hourMoves: Array<{ key: CounterKey; from: number; to: number }> = [];
    for (const input of inputs) {
      const asset = assets.get(input.id);
      if (!asset || (input.expectedType !== undefined && asset.row.type !== input.expectedType)) {
        found.push(false);
        continue;
      }
      const seq = Number(asset.row.seq);
      for (const name of Object.keys(input.changes)) {
        const change = input.changes[name] as NgsiAttribute;
        if (!Object.hasOwn(asset.attrs, name) || asset.attrs[name]?.type !== change.type) attributes.push({ seq, name, type: change.type });
      }
      for (const r of input.readings) readings.push({ seq, recvTime: input.receivedAt, name: r.name, type: r.type, value: r.value });
      asset.attrs = mergeAttributes(asset.attrs, input.changes);
      const to = input.position;
      if (to && (to.latitude !== asset.latitude || to.longitude !== asset.longitude)) {
        asset.latitude = to.latitude;
        asset.longitude = to.longitude;
        asset.moved = true;
      }
      const [from, toHour] = [activityHour(asset.lastReadingAt), activityHour(input.receivedAt)];
      if (from !== toHour) hourMoves.push({ key: counterKey(asset.row), from, to: toHour });
      asset.lastReadingAt = input.receivedAt;
      asset.recordedAt = input.recordedAt;
      asset.changed = true;
      found.push(true);
    }

    const moved: Array<{ seq: number; latitude: number; longitude: number }> = [];
    for (const asset of assets.values()) {
      if (!asset.changed) continue;
      const seq = Number(asset.row.seq);
      const attrs = JSON.stringify(asset.attrs);
      if (asset.moved) {
        await WRITE_STATE_AND_POSITION.run(session, [seq, attrs, asset.recordedAt, asset.lastReadingAt, asset.latitude, asset.longitude]);
        moved.push({ seq, latitude: asset.latitude, longitude: asset.longitude });
      } else {
        await WRITE_STATE.run(session, [seq, attrs, asset.recordedAt, asset.lastReadingAt]);
      }
    }
    await addReadingRows(session, readings);
    await recordAttributeRows(session, attributes);
    for (const { key, from, to } of hourMoves) {
      await decrementActivity(session, key, from);
      await incrementActivity(session, key, to);
    }
    return { found, moved };
  });
  for (const m of done.moved) await adapter.indexPosition(trx, m.seq, m.longitude, m.latitude);
  return done.found;
}

/** Appends and updates attributes of a live asset; false when there is no such asset. */
export async function updateAssetRecord(trx: Trx, adapter: DialectAdapter, input: AssetChange): Promise<boolean> {
  return (await updateAssetRecords(trx, adapter, [input]))[0] === true;
}

type DeletedAsset = { site: string; service: string | null; provider: string | null; type: string; last_reading_at: number };

/** Variant 1 also requires the type (`?type=`). */
const MARK_DELETED = new PreparedQuery<[now: number, id: string, type: string | undefined], DeletedAsset>(3, (db, [now, id, type], _dialect, withType) => {
  let query = db.updateTable('assets').set({ deleted_at: now }).where('id', '=', id).where('deleted_at', 'is', null);
  if (withType === 1) query = query.where('type', '=', type);
  return query.returning(['site', 'service', 'provider', 'type', 'last_reading_at']);
});

/** Takes a live asset out of discovery (its readings stay); false when there is no such asset. */
export async function deleteAssetRecord(trx: Trx, adapter: DialectAdapter, id: string, expectedType: string | undefined, now: number): Promise<boolean> {
  return inSession(trx, adapter.name, async (session) => {
    const row = (await MARK_DELETED.run(session, [now, id, expectedType], expectedType === undefined ? 0 : 1)).rows[0];
    if (!row) return false;
    const key = counterKey(row);
    await decrementCount(session, key);
    await decrementActivity(session, key, activityHour(Number(row.last_reading_at)));
    return true;
  });
}

export interface StoredAsset {
  id: string;
  type: string;
  /** JSON text of the NGSI v2 normalized attributes. */
  attrs: string;
}

/** A live asset as its site last pushed it. */
export async function findLiveAsset(store: Store, id: string): Promise<StoredAsset | undefined> {
  return store.read.selectFrom('assets').select(['id', 'type', 'attrs'])
    .where('id', '=', id).where('deleted_at', 'is', null)
    .executeTakeFirst();
}
