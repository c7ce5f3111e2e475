import type { Transaction } from 'kysely';
import { activityHour } from '../../domain/activity.js';
import { mergeAttributes, type NgsiAttribute, type NgsiAttributes } from '../../domain/asset-body.js';
import type { Position } from '../../domain/position.js';
import { EXPERIMENTERS_SITE, type AssetUrn } from '../../domain/urn.js';
import type { DialectAdapter, IndexedPosition } from '../dialects/adapter.js';
import { inSession, PreparedQuery, RawStatement, type Session } from '../prepared-query.js';
import {
  activityDeltaColumns, addReadingRows, attributeColumns, chunks, counterKey, decrementActivity, decrementCount, dropEmptiedActivities,
  incrementActivity, incrementCount, latestAttributeRows, moveActivity, netActivityMoves, recordAttributeRows, registerType, Tally, type AttributeRow, type CounterKey, type EmptiedActivity, type ReadingInput, type ReadingRow,
} from './asset-derived.js';
import type { PendingChanges } from '../pending-changes.js';
import type { Database } from '../schema.js';
import type { Store } from '../store.js';

/**
 * The asset write path: every create, update and delete changes the asset's
 * current state, its history (readings), the attribute and type catalogues and
 * the counters discovery reads, all in the one transaction the write queue
 * gives it — nothing is ever half-written.
 */
type Trx = Transaction<Database>;

export { type ReadingInput } from './asset-derived.js';

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
 * The site row with its count of live assets, read once per site and batch:
 * the creates of the batch then count themselves. On PostgreSQL the rows are
 * locked until the transaction ends (several processes may create for one
 * site at once), and the counts are read by a second statement once the locks
 * are held: a statement sees what was committed when it began, so counting in
 * the locking statement would miss the creates of a transaction it waited for.
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
 * PostgreSQL answers each statement over the network, so its batches take
 * arrays and unnest them: a statement per batch, whatever its size, instead of
 * several per asset. SQLite, in process, runs prepared statements per asset.
 */

/** Sorted, so that two processes creating for the same sites lock them in the same order. */
const LOCK_SITES = new RawStatement<{ id: string; quota: number | null; latitude: number; longitude: number }>(
  'select id, quota, latitude, longitude from sites where id = any($1::text[]) order by id for update');

/** Once the sites are locked: their live-asset counts, and which of the ids are live assets. */
const COUNTS_AND_LIVE = new RawStatement<{ kind: 'count' | 'live'; key: string; n: number | string }>(
  `select 'count' as kind, site as key, coalesce(sum(assets), 0) as n from asset_counts where site = any($1::text[]) group by site
   union all
   select 'live', id, 0 from assets where id = any($2::text[]) and deleted_at is null`);

/**
 * The creates of a batch at once: the assets (a deleted row with the id is
 * revived, keeping its seq), their position in the geo index, their readings
 * (in request order), attribute catalogue, live-asset counts, activity
 * buckets and new types. Every derived row joins the assets the statement
 * actually wrote, so an asset that turned out to exist writes nothing.
 */
const CREATE_BATCH = new RawStatement<{ id: string; seq: number | string }>(`
with input as (
  select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                       $11::float8[], $12::float8[], $13::int8[], $14::int8[], $15::int8[], $16::text[], $17::text[], $18::bool[])
    as t(id, type, site, service, provider, grp, name, experimenter, experiment, attrs,
         latitude, longitude, recorded_at, received_at, hour, counted_service, counted_provider, register)
),
inserted as (
  insert into assets as a (id, type, site, service, provider, grp, name, experimenter, experiment, attrs,
                           latitude, longitude, recorded_at, last_reading_at, created_at, deleted_at, geog)
  select id, type, site, service, provider, grp, name, experimenter, experiment, attrs,
         latitude, longitude, recorded_at, received_at, received_at, null, ST_SetSRID(ST_MakePoint(longitude, latitude), 4326)::geography
  from input
  on conflict (id) do update set type = excluded.type, site = excluded.site, service = excluded.service, provider = excluded.provider,
    grp = excluded.grp, name = excluded.name, experimenter = excluded.experimenter, experiment = excluded.experiment, attrs = excluded.attrs,
    latitude = excluded.latitude, longitude = excluded.longitude, recorded_at = excluded.recorded_at, last_reading_at = excluded.last_reading_at,
    created_at = excluded.created_at, deleted_at = null, geog = excluded.geog
  where a.deleted_at is not null
  returning a.id, a.seq
),
readings_added as (
  insert into readings (asset_seq, attr_name, recv_time, attr_type, attr_value)
  select i.seq, r.name, t.received_at, r.type, r.value
  from unnest($19::text[], $20::text[], $21::text[], $22::text[]) with ordinality as r(id, name, type, value, ord)
  join inserted i on i.id = r.id join input t on t.id = r.id
  order by r.ord
),
attributes_added as (
  insert into asset_attributes (asset_seq, name, type)
  select i.seq, r.name, r.type from unnest($23::text[], $24::text[], $25::text[]) as r(id, name, type) join inserted i on i.id = r.id
  on conflict (asset_seq, name) do update set type = excluded.type
),
counted as (
  insert into asset_counts (site, service, provider, type, assets)
  select t.site, t.counted_service, t.counted_provider, t.type, count(*) from input t join inserted i on i.id = t.id group by 1, 2, 3, 4
  on conflict (site, service, provider, type) do update set assets = asset_counts.assets + excluded.assets
),
active as (
  insert into asset_activity (site, service, provider, type, hour, assets)
  select t.site, t.counted_service, t.counted_provider, t.type, t.hour, count(*) from input t join inserted i on i.id = t.id group by 1, 2, 3, 4, 5
  on conflict (site, service, provider, type, hour) do update set assets = asset_activity.assets + excluded.assets
),
typed as (
  insert into asset_types (id, description)
  select distinct t.type, '' from input t join inserted i on i.id = t.id where t.register
  on conflict (id) do nothing
)
select id, seq from inserted`);

export interface CreateInput {
  asset: NewAsset;
  /** The type may be missing from asset_types: register it if the asset is created. */
  registerType: boolean;
  /** The quota of a site that has none of its own. */
  defaultQuota: number;
}

interface SiteState {
  /** Its own quota; null: the default. */
  quota: number | null;
  latitude: number;
  longitude: number;
  /** Live assets, the creates of this batch so far included. */
  assets: number;
}

interface Created {
  input: CreateInput;
  seq: number;
  position: Position;
}

/** The site's centre when the request gave no position. */
const positionOf = (asset: NewAsset, site: SiteState): Position => asset.position ?? { latitude: site.latitude, longitude: site.longitude };

/**
 * Creates assets, or revives deleted ones with their ids (fresh attributes,
 * same seq, so their history stays attached), deciding each in order as if
 * they ran one after another: the quota counts live assets, those created
 * earlier in the batch included, and a refused create writes nothing.
 */
export async function createAssetRecords(trx: Trx, adapter: DialectAdapter, changes: PendingChanges, inputs: CreateInput[]): Promise<CreateOutcome[]> {
  const { outcomes, created } = await inSession(trx, adapter.name, (session) =>
    (session.dialect === 'postgres' ? createOnPostgres(session, inputs) : createOnSqlite(session, inputs)));
  for (const { input: { asset } } of created) {
    changes.add({ assetId: asset.id, assetType: asset.type, site: asset.urn.site, kind: 'create', attributes: asset.attributes, at: asset.receivedAt });
  }
  await adapter.indexPositions(trx, created.map((c) => ({ seq: c.seq, ...c.position, city: c.input.asset.urn.site !== EXPERIMENTERS_SITE })));
  return outcomes;
}

async function createOnSqlite(session: Session, inputs: CreateInput[]): Promise<{ outcomes: CreateOutcome[]; created: Created[] }> {
  const sites = new Map<string, SiteState | null>();
  const outcomes: CreateOutcome[] = [];
  const created: Created[] = [];
  for (const input of inputs) {
    const { asset } = input;
    const { urn } = asset;
    let site = sites.get(urn.site);
    if (site === undefined) {
      const row = (await SITE_WITH_COUNT.run(session, [urn.site])).rows[0];
      site = row ? { quota: row.quota, latitude: row.latitude, longitude: row.longitude, assets: Number(row.assets ?? 0) } : null;
      sites.set(urn.site, site);
    }
    if (!site) {
      outcomes.push({ kind: 'no-site' });
      continue;
    }
    const quota = site.quota ?? input.defaultQuota;
    if (site.assets >= quota) {
      outcomes.push({ kind: 'quota-reached', quota });
      continue;
    }
    const position = positionOf(asset, site);
    const row = (await UPSERT_ASSET.run(session, [
      asset.id, asset.type, urn.site, urn.service, urn.provider, urn.group, urn.name, urn.experimenter, urn.experiment,
      JSON.stringify(asset.attributes), position.latitude, position.longitude, asset.recordedAt, asset.receivedAt,
    ])).rows[0];
    if (!row) {
      outcomes.push({ kind: 'exists' });
      continue;
    }
    const seq = Number(row.seq);
    site.assets += 1;
    created.push({ input, seq, position });
    outcomes.push({ kind: 'created', seq });
  }
  if (created.length === 0) return { outcomes, created };

  // What the creates keep beside their rows, in few statements for the whole batch.
  await addReadingRows(session, created.flatMap(({ input: { asset }, seq }) =>
    asset.readings.map((r) => ({ seq, recvTime: asset.receivedAt, name: r.name, type: r.type, value: r.value }))));
  await recordAttributeRows(session, created.flatMap(({ input: { asset }, seq }) =>
    Object.keys(asset.attributes).map((name) => ({ seq, name, type: (asset.attributes[name] as NgsiAttribute).type }))));
  const counts = new Tally<CounterKey>();
  const activity = new Tally<{ key: CounterKey; hour: number }>();
  const types = new Set<string>();
  for (const { input: { asset, registerType } } of created) {
    const key = counterKey({ site: asset.urn.site, service: asset.urn.service, provider: asset.urn.provider, type: asset.type });
    const hour = activityHour(asset.receivedAt);
    counts.add(key, [], key);
    activity.add(key, [hour], { key, hour });
    if (registerType) types.add(asset.type);
  }
  for (const { value: key, n } of counts.groupsWithCounts()) await incrementCount(session, key, n);
  for (const { value: { key, hour }, n } of activity.groupsWithCounts()) await incrementActivity(session, key, hour, n);
  for (const type of types) await registerType(session, type);
  return { outcomes, created };
}

async function createOnPostgres(session: Session, inputs: CreateInput[]): Promise<{ outcomes: CreateOutcome[]; created: Created[] }> {
  const siteIds = [...new Set(inputs.map((i) => i.asset.urn.site))].sort();
  const sites = new Map<string, SiteState>();
  for (const row of (await LOCK_SITES.run(session, [siteIds])).rows) {
    sites.set(row.id, { quota: row.quota, latitude: row.latitude, longitude: row.longitude, assets: 0 });
  }
  const live = new Set<string>();
  if (sites.size > 0) {
    const state = await COUNTS_AND_LIVE.run(session, [[...sites.keys()], [...new Set(inputs.map((i) => i.asset.id))]]);
    for (const row of state.rows) {
      if (row.kind === 'live') live.add(row.key);
      else (sites.get(row.key) as SiteState).assets = Number(row.n);
    }
  }

  // Decided in order, as SQLite decides them: an id live before the batch, or
  // created earlier in it, exists; otherwise the site's quota decides.
  const outcomes: Array<CreateOutcome | undefined> = [];
  const chosen: Array<{ index: number; input: CreateInput; position: Position }> = [];
  for (const [index, input] of inputs.entries()) {
    const { asset } = input;
    const site = sites.get(asset.urn.site);
    const quota = site ? site.quota ?? input.defaultQuota : 0;
    if (!site) outcomes.push({ kind: 'no-site' });
    else if (site.assets >= quota) outcomes.push({ kind: 'quota-reached', quota });
    else if (live.has(asset.id)) outcomes.push({ kind: 'exists' });
    else {
      live.add(asset.id);
      site.assets += 1;
      chosen.push({ index, input, position: positionOf(asset, site) });
      outcomes.push(undefined);
    }
  }
  const created: Created[] = [];
  if (chosen.length > 0) {
    const column = <T>(f: (c: (typeof chosen)[number]) => T): T[] => chosen.map(f);
    const readings = chosen.flatMap(({ input: { asset } }) => asset.readings.map((r) => ({ id: asset.id, ...r })));
    const attributes = chosen.flatMap(({ input: { asset } }) =>
      Object.keys(asset.attributes).map((name) => ({ id: asset.id, name, type: (asset.attributes[name] as NgsiAttribute).type })));
    const keys = chosen.map(({ input: { asset } }) => counterKey({ site: asset.urn.site, service: asset.urn.service, provider: asset.urn.provider, type: asset.type }));
    const result = await CREATE_BATCH.run(session, [
      column((c) => c.input.asset.id), column((c) => c.input.asset.type), column((c) => c.input.asset.urn.site),
      column((c) => c.input.asset.urn.service), column((c) => c.input.asset.urn.provider), column((c) => c.input.asset.urn.group),
      column((c) => c.input.asset.urn.name), column((c) => c.input.asset.urn.experimenter), column((c) => c.input.asset.urn.experiment),
      column((c) => JSON.stringify(c.input.asset.attributes)), column((c) => c.position.latitude), column((c) => c.position.longitude),
      column((c) => c.input.asset.recordedAt), column((c) => c.input.asset.receivedAt), column((c) => activityHour(c.input.asset.receivedAt)),
      keys.map((k) => k.service), keys.map((k) => k.provider), column((c) => c.input.registerType),
      readings.map((r) => r.id), readings.map((r) => r.name), readings.map((r) => r.type), readings.map((r) => r.value),
      attributes.map((a) => a.id), attributes.map((a) => a.name), attributes.map((a) => a.type),
    ]);
    const seqs = new Map(result.rows.map((r) => [r.id, Number(r.seq)]));
    for (const { index, input, position } of chosen) {
      const seq = seqs.get(input.asset.id);
      // Only a live asset no lock kept out could be missing; its create wrote nothing.
      if (seq === undefined) outcomes[index] = { kind: 'exists' };
      else {
        outcomes[index] = { kind: 'created', seq };
        created.push({ input, seq, position });
      }
    }
  }
  return { outcomes: outcomes as CreateOutcome[], created };
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

/** SQLite: the live assets to update (its write lock keeps them as read). */
const CURRENT_ASSETS = new PreparedQuery<string[], CurrentAsset & { id: string }>((n) => n, (db, ids, _dialect, n) =>
  db.selectFrom('assets')
    .select(['id', 'seq', 'type', 'site', 'service', 'provider', 'attrs', 'latitude', 'longitude', 'last_reading_at'])
    .where('id', 'in', ids.slice(0, n)).where('deleted_at', 'is', null));

const WRITE_STATE = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number], never>(4, (db, [seq, attrs, recordedAt, receivedAt]) =>
  db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt }).where('seq', '=', seq));

const WRITE_STATE_AND_POSITION = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number, latitude: number, longitude: number], never>(6,
  (db, [seq, attrs, recordedAt, receivedAt, latitude, longitude]) =>
    db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt, latitude, longitude }).where('seq', '=', seq));

/** PostgreSQL: the batch's assets in one statement, locked in id order (two processes lock alike). */
const CURRENT_ASSETS_LOCKED = new RawStatement<CurrentAsset & { id: string }>(
  `select id, seq, type, site, service, provider, attrs, latitude, longitude, last_reading_at
   from assets where id = any($1::text[]) and deleted_at is null order by id for update`);

/**
 * PostgreSQL: everything an update batch writes, in one statement (a round
 * trip waits for a turn of the event loop, and under read load each turn is
 * slow): the assets' states (and the geography of the moved ones), their
 * readings, the attributes they gained and their activity moves; it returns
 * the activity hours the moves left empty.
 */
const WRITE_UPDATE_BATCH = new RawStatement<EmptiedActivity>(`
with written as (
  update assets as a set attrs = u.attrs, recorded_at = u.recorded_at, last_reading_at = u.last_reading_at,
    latitude = u.latitude, longitude = u.longitude,
    geog = case when u.moved then ST_SetSRID(ST_MakePoint(u.longitude, u.latitude), 4326)::geography else a.geog end
  from unnest($1::int8[], $2::text[], $3::int8[], $4::int8[], $5::float8[], $6::float8[], $7::bool[])
    as u(seq, attrs, recorded_at, last_reading_at, latitude, longitude, moved)
  where a.seq = u.seq
), appended as (
  insert into readings (asset_seq, recv_time, attr_name, attr_type, attr_value)
  select * from unnest($8::int8[], $9::int8[], $10::text[], $11::text[], $12::text[])
), attributes as (
  insert into asset_attributes (asset_seq, name, type)
  select * from unnest($13::int8[], $14::text[], $15::text[])
  on conflict (asset_seq, name) do update set type = excluded.type
), added as (
  insert into asset_activity (site, service, provider, type, hour, assets)
  select * from unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::int8[], $21::int8[])
  on conflict (site, service, provider, type, hour) do update set assets = asset_activity.assets + excluded.assets
  returning site, service, provider, type, hour, assets
)
select site, service, provider, type, hour from added where assets <= 0`);

type HourMove = { key: CounterKey; from: number; to: number };
/** Each group of assets of one counter moving between the same two hours, with how many move. */
const movesOf = (tally: Tally<HourMove>) => [...tally.groupsWithCounts()].map(({ value, n }) => ({ ...value, n }));

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
export async function updateAssetRecords(trx: Trx, adapter: DialectAdapter, changes: PendingChanges, inputs: AssetChange[]): Promise<boolean[]> {
  const done = await inSession(trx, adapter.name, async (session) => {
    const assets = new Map<string, Working>();
    const keep = (row: CurrentAsset & { id: string }) => assets.set(row.id, {
      row, attrs: JSON.parse(row.attrs) as Record<string, NgsiAttribute>, recordedAt: 0,
      lastReadingAt: Number(row.last_reading_at), latitude: row.latitude, longitude: row.longitude, changed: false, moved: false,
    });
    const ids = [...new Set(inputs.map((i) => i.id))];
    if (session.dialect === 'postgres') {
      for (const row of (await CURRENT_ASSETS_LOCKED.run(session, [ids])).rows) keep(row);
    } else {
      for (const chunk of chunks(ids)) for (const row of (await CURRENT_ASSETS.run(session, chunk, chunk.length)).rows) keep(row);
    }

    const found: boolean[] = [];
    const readings: ReadingRow[] = [];
    const attributes: AttributeRow[] = [];
    // Assets of one counter moving between the same two hours are counted together.
    const hourMoves = new Tally<HourMove>();
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
      if (from !== toHour) {
        const key = counterKey(asset.row);
        hourMoves.add(key, [from, toHour], { key, from, to: toHour });
      }
      asset.lastReadingAt = input.receivedAt;
      asset.recordedAt = input.recordedAt;
      asset.changed = true;
      found.push(true);
      changes.add({ assetId: input.id, assetType: asset.row.type, site: asset.row.site, kind: 'update', attributes: input.changes, at: input.receivedAt });
    }

    const moved: IndexedPosition[] = [];
    if (session.dialect === 'postgres') {
      const changed = [...assets.values()].filter((a) => a.changed);
      const emptied = await WRITE_UPDATE_BATCH.run(session, [
        changed.map((a) => Number(a.row.seq)), changed.map((a) => JSON.stringify(a.attrs)), changed.map((a) => a.recordedAt),
        changed.map((a) => a.lastReadingAt), changed.map((a) => a.latitude), changed.map((a) => a.longitude), changed.map((a) => a.moved),
        readings.map((r) => r.seq), readings.map((r) => r.recvTime), readings.map((r) => r.name), readings.map((r) => r.type), readings.map((r) => r.value),
        ...attributeColumns(latestAttributeRows(attributes)),
        ...activityDeltaColumns(netActivityMoves(movesOf(hourMoves))),
      ]);
      await dropEmptiedActivities(session, emptied.rows);
    } else {
      for (const asset of assets.values()) {
        if (!asset.changed) continue;
        const seq = Number(asset.row.seq);
        const attrs = JSON.stringify(asset.attrs);
        if (asset.moved) {
          await WRITE_STATE_AND_POSITION.run(session, [seq, attrs, asset.recordedAt, asset.lastReadingAt, asset.latitude, asset.longitude]);
          moved.push({ seq, latitude: asset.latitude, longitude: asset.longitude, city: asset.row.site !== EXPERIMENTERS_SITE });
        } else {
          await WRITE_STATE.run(session, [seq, attrs, asset.recordedAt, asset.lastReadingAt]);
        }
      }
      await addReadingRows(session, readings);
      await recordAttributeRows(session, attributes);
      await moveActivity(session, movesOf(hourMoves));
    }
    return { found, moved };
  });
  if (done.moved.length > 0) await adapter.indexPositions(trx, done.moved);
  return done.found;
}

/** Appends and updates attributes of a live asset; false when there is no such asset. */
export async function updateAssetRecord(trx: Trx, adapter: DialectAdapter, changes: PendingChanges, input: AssetChange): Promise<boolean> {
  return (await updateAssetRecords(trx, adapter, changes, [input]))[0] === true;
}

type DeletedAsset = { seq: number; site: string; service: string | null; provider: string | null; type: string; last_reading_at: number };

/** Variant 1 also requires the type (`?type=`). */
const MARK_DELETED = new PreparedQuery<[now: number, id: string, type: string | undefined], DeletedAsset>(3, (db, [now, id, type], _dialect, withType) => {
  let query = db.updateTable('assets').set({ deleted_at: now }).where('id', '=', id).where('deleted_at', 'is', null);
  if (withType === 1) query = query.where('type', '=', type);
  return query.returning(['seq', 'site', 'service', 'provider', 'type', 'last_reading_at']);
});

/** Takes a live asset out of discovery (its readings stay); false when there is no such asset. */
export async function deleteAssetRecord(
  trx: Trx, adapter: DialectAdapter, changes: PendingChanges, id: string, expectedType: string | undefined, now: number,
): Promise<boolean> {
  const seq = await inSession(trx, adapter.name, async (session) => {
    const row = (await MARK_DELETED.run(session, [now, id, expectedType], expectedType === undefined ? 0 : 1)).rows[0];
    if (!row) return undefined;
    const key = counterKey(row);
    await decrementCount(session, key);
    await decrementActivity(session, key, activityHour(Number(row.last_reading_at)));
    changes.add({ assetId: id, assetType: row.type, site: row.site, kind: 'delete', attributes: {}, at: now });
    return Number(row.seq);
  });
  if (seq === undefined) return false;
  await adapter.unindexPosition(trx, seq);
  return true;
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
