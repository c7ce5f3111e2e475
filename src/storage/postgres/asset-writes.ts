import { sql } from 'kysely';
import { activityHour } from '../../domain/activity.js';
import { counterKey, netActivityMoves, type ActivityDelta } from '../../domain/asset-counters.js';
import { readingsOf, type AssetChange, type CreateInput, type CreateOutcome, type UpdateOutcome } from '../../domain/asset-writes.js';
import { createdChange, type ChangeSink } from '../../domain/changes.js';
import { attributesOf, CreateDecisions, type SiteState } from '../../domain/create-decisions.js';
import type { Position } from '../../domain/position.js';
import { latestAttributeRows, planUpdates, type CurrentAsset } from '../../domain/update-plan.js';
import type { AssetWrites } from '../ports.js';
import { concatRows, PreparedQuery, RawStatement, type Session } from '../prepared-query.js';
import { deleteAssets } from '../shared/asset-counters.js';
import { termIds } from './reading-terms.js';
import { ROLLUP_COLUMNS, ROLLUP_MERGE, keepsDelta, rollupColumns } from '../shared/reading-rollups.js';

/**
 * PostgreSQL's asset writes. Each statement is a round trip, so a batch takes
 * arrays and unnests them: a statement per batch, whatever its size, instead
 * of several per asset.
 */

/*
 * Assets are looked up by id one index probe per id (a lateral subquery the
 * planner may not flatten, \`offset 0\`): a prepared statement keeps the plan
 * made on its first runs, and one made while the table was small scanned it
 * whole, on every run, as it grew. The probe names the id alone, and whether
 * the asset is live is judged outside it: with \`deleted_at is null\` inside,
 * a plan could take a partial index of live assets and read all of them for
 * each id.
 */

/**
 * The CTE that merges a batch's rollup deltas (ROLLUP_COLUMNS, one array each
 * from parameter \`$first\`) into the rollups, inside the batch's statement:
 * the rollups cost no round trip of their own. \`key\` is the type of the first
 * array and \`join\` turns it into the asset's seq. Of the days, only those
 * already built from their hours are written (../shared/reading-rollups.ts).
 */
const rolledUp = (first: number, key: 'int8' | 'text', join: { from: string; seq: string }): string => {
  const types = [key, 'text', 'int8', 'int8', 'int8', 'float8', 'float8', 'float8', 'int8', 'float8', 'int8', 'float8'];
  const params = types.map((t, k) => `$${first + k}::${t}[]`).join(', ');
  return `rolled as (
  insert into reading_rollups (${ROLLUP_COLUMNS.join(', ')})
  select ${join.seq}, ${ROLLUP_COLUMNS.slice(1).map((c) => `d.${c}`).join(', ')}
  from unnest(${params}) as d(${ROLLUP_COLUMNS.join(', ')})${join.from}
  where ${keepsDelta('d')}
  on conflict (asset_seq, attr_name, period_ms, bucket) do update set ${ROLLUP_MERGE}
)`;
};

/** Sorted, so that two processes creating for the same sites lock them in the same order. */
const LOCK_SITES = new RawStatement<{ id: string; quota: number | null; latitude: number; longitude: number }>(
  'select id, quota, latitude, longitude from sites where id = any($1::text[]) order by id for update');

/**
 * Once the sites are locked: their live-asset counts, and which of the ids are
 * live assets. A statement sees what was committed when it began, so counting
 * in the locking statement would miss the creates of a transaction it waited for.
 */
const COUNTS_AND_LIVE = new RawStatement<{ kind: 'count' | 'live'; key: string; n: number | string }>(
  `select 'count' as kind, site as key, coalesce(sum(assets), 0) as n from asset_counts where site = any($1::text[]) group by site
   union all
   select 'live', a.id, 0 from unnest($2::text[]) as i(id)
   cross join lateral (select id, deleted_at from assets where id = i.id offset 0) a where a.deleted_at is null`);

/**
 * The creates of a batch at once: the assets (a deleted row with the id is
 * revived, keeping its seq), their readings (in request order), attribute
 * catalogue, live-asset counts, activity buckets and new types. Every derived
 * row joins the assets the statement actually wrote, so an asset that turned
 * out to exist writes nothing.
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
  insert into readings (asset_seq, name_id, recv_time, observed_time, type_id, attr_value)
  select i.seq, r.name_id, t.received_at, t.recorded_at, r.type_id, r.value
  from unnest($19::text[], $20::int4[], $21::int4[], $22::text[]) with ordinality as r(id, name_id, type_id, value, ord)
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
),
${rolledUp(26, 'text', { from: ' join inserted i on i.id = d.asset_seq', seq: 'i.seq' })}
select id, seq from inserted`);

/** The batch's assets in one statement, locked in id order (two processes lock alike). */
const CURRENT_ASSETS_LOCKED = new RawStatement<CurrentAsset>(
  `select a.* from unnest($1::text[]) with ordinality as i(id, ord)
   cross join lateral (select id, seq, type, site, service, provider, attrs, latitude, longitude, recorded_at, last_reading_at, deleted_at
                       from assets where id = i.id offset 0 for update) a
   where a.deleted_at is null
   order by i.ord`);

/** A counter and hour that a batch's deltas took to zero (int8 comes as text). */
interface EmptiedActivity {
  site: string;
  service: string;
  provider: string;
  type: string;
  hour: number | string;
}

/**
 * Everything an update batch writes, in one statement (a round trip waits for
 * a turn of the event loop, and under read load each turn is slow): the
 * assets' states (and the geography of the moved ones), their readings, the
 * attributes they gained and their activity moves; it returns the activity
 * hours the moves left empty.
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
  insert into readings (asset_seq, recv_time, name_id, type_id, attr_value, observed_time)
  select u.seq, u.recv_time, u.name_id, u.type_id, u.value, u.observed_time
  from unnest($8::int8[], $9::int8[], $10::int4[], $11::int4[], $12::text[], $22::int8[]) with ordinality as u(seq, recv_time, name_id, type_id, value, observed_time, ord)
  order by u.ord
), attributes as (
  insert into asset_attributes (asset_seq, name, type)
  select * from unnest($13::int8[], $14::text[], $15::text[])
  on conflict (asset_seq, name) do update set type = excluded.type
), added as (
  insert into asset_activity (site, service, provider, type, hour, assets)
  select * from unnest($16::text[], $17::text[], $18::text[], $19::text[], $20::int8[], $21::int8[])
  on conflict (site, service, provider, type, hour) do update set assets = asset_activity.assets + excluded.assets
  returning site, service, provider, type, hour, assets
),
${rolledUp(23, 'int8', { from: '', seq: 'd.asset_seq' })}
select site, service, provider, type, hour from added where assets <= 0`);

type ActivityColumns = [sites: string[], services: string[], providers: string[], types: string[], hours: number[]];
const activityColumns = (rows: ReadonlyArray<{ key: { site: string; service: string; provider: string; type: string }; hour: number }>): ActivityColumns =>
  [rows.map((r) => r.key.site), rows.map((r) => r.key.service), rows.map((r) => r.key.provider), rows.map((r) => r.key.type), rows.map((r) => r.hour)];
const deltaColumns = (rows: readonly ActivityDelta[]): [...ActivityColumns, by: number[]] => [...activityColumns(rows), rows.map((r) => r.by)];

const DROP_EMPTY_ACTIVITIES = new PreparedQuery<ActivityColumns, never>(5, (_db, [sites, services, providers, types, hours]) =>
  sql`delete from asset_activity a
    using unnest(${sites}::text[], ${services}::text[], ${providers}::text[], ${types}::text[], ${hours}::int8[]) as m(site, service, provider, type, hour)
    where a.site = m.site and a.service = m.service and a.provider = m.provider and a.type = m.type and a.hour = m.hour and a.assets <= 0`);

/**
 * Creates assets, or revives deleted ones with their ids, decided in order
 * once the batch's sites are locked (several processes may create for one
 * site at once) and their counts and live ids read.
 */
async function create(session: Session, inputs: readonly CreateInput[], changes: ChangeSink): Promise<CreateOutcome[]> {
  const siteIds = [...new Set(inputs.map((i) => i.asset.urn.site))].sort();
  const sites = new Map<string, SiteState | null>();
  const live = new Set<string>();
  // Sent together, they run one after the other on the connection: the counts' statement starts once the locks are held.
  const [locked, state] = await Promise.all([
    LOCK_SITES.run(session, [siteIds]),
    COUNTS_AND_LIVE.run(session, [siteIds, [...new Set(inputs.map((i) => i.asset.id))]]),
  ]);
  for (const row of locked.rows) sites.set(row.id, { quota: row.quota, latitude: row.latitude, longitude: row.longitude, assets: 0 });
  for (const row of state.rows) {
    if (row.kind === 'live') live.add(row.key);
    else {
      const site = sites.get(row.key);
      if (site) site.assets = Number(row.n);
    }
  }
  const decisions = new CreateDecisions(sites, live);
  const outcomes: Array<CreateOutcome | undefined> = [];
  const chosen: Array<{ index: number; input: CreateInput; position: Position }> = [];
  for (const [index, input] of inputs.entries()) {
    const refusal = decisions.refusal(input);
    if (refusal) outcomes.push(refusal);
    else {
      chosen.push({ index, input, position: decisions.positionOf(input.asset) });
      decisions.made(input);
      outcomes.push(undefined);
    }
  }
  if (chosen.length > 0) {
    const column = <T>(f: (c: (typeof chosen)[number]) => T): T[] => chosen.map(f);
    const readings = concatRows(chosen, ({ input: { asset } }) => readingsOf(asset.attributes).map((r) => ({ id: asset.id, ...r })));
    const idOf = await termIds(session, readings);
    const attributes = concatRows(chosen, ({ input: { asset } }) => attributesOf(asset).map((a) => ({ id: asset.id, ...a })));
    const keys = chosen.map(({ input: { asset } }) => counterKey({ site: asset.urn.site, service: asset.urn.service, provider: asset.urn.provider, type: asset.type }));
    // Rollups keyed by the asset's id: the statement joins them to the assets it actually wrote.
    const rolled = rollupColumns(concatRows(chosen, ({ input: { asset } }, k) =>
      readingsOf(asset.attributes).map((r) => ({ seq: k, recvTime: asset.receivedAt, name: r.name, value: r.value }))), (k) => (chosen[k] as (typeof chosen)[number]).input.asset.id);
    const result = await CREATE_BATCH.run(session, [
      column((c) => c.input.asset.id), column((c) => c.input.asset.type), column((c) => c.input.asset.urn.site),
      column((c) => c.input.asset.urn.service), column((c) => c.input.asset.urn.provider), column((c) => c.input.asset.urn.group),
      column((c) => c.input.asset.urn.name), column((c) => c.input.asset.urn.experimenter), column((c) => c.input.asset.urn.experiment),
      column((c) => JSON.stringify(c.input.asset.attributes)), column((c) => c.position.latitude), column((c) => c.position.longitude),
      column((c) => c.input.asset.recordedAt), column((c) => c.input.asset.receivedAt), column((c) => activityHour(c.input.asset.receivedAt)),
      keys.map((k) => k.service), keys.map((k) => k.provider), column((c) => c.input.registerType),
      readings.map((r) => r.id), readings.map((r) => idOf(r.name)), readings.map((r) => idOf(r.type)), readings.map((r) => r.value),
      attributes.map((a) => a.id), attributes.map((a) => a.name), attributes.map((a) => a.type),
      ...rolled,
    ]);
    const seqs = new Map(result.rows.map((r) => [r.id, Number(r.seq)]));
    for (const { index, input } of chosen) {
      const seq = seqs.get(input.asset.id);
      // Only a live asset no lock kept out could be missing; its create wrote nothing.
      outcomes[index] = seq === undefined ? { kind: 'exists' } : { kind: 'created', seq };
      if (seq !== undefined) changes.add(createdChange(input.asset));
    }
  }
  return outcomes as CreateOutcome[];
}

/** Applies updates in order (src/domain/update-plan.ts): one statement reads the assets, one writes them all. */
async function update(session: Session, inputs: readonly AssetChange[], changes: ChangeSink): Promise<UpdateOutcome[]> {
  // Locked in id order, as every process locks them.
  const current = (await CURRENT_ASSETS_LOCKED.run(session, [[...new Set(inputs.map((i) => i.id))].sort()])).rows;
  const plan = planUpdates(inputs, current);
  const idOf = await termIds(session, plan.readings);
  const written = plan.written;
  const attributes = latestAttributeRows(plan.attributes);
  const { readings } = plan;
  const emptied = await WRITE_UPDATE_BATCH.run(session, [
    written.map((a) => a.seq), written.map((a) => JSON.stringify(a.attrs)), written.map((a) => a.recordedAt),
    written.map((a) => a.lastReadingAt), written.map((a) => a.latitude), written.map((a) => a.longitude), written.map((a) => a.moved),
    readings.map((r) => r.seq), readings.map((r) => r.recvTime), readings.map((r) => idOf(r.name)), readings.map((r) => idOf(r.type)), readings.map((r) => r.value),
    attributes.map((r) => r.seq), attributes.map((r) => r.name), attributes.map((r) => r.type),
    ...deltaColumns(netActivityMoves(plan.hourMoves)),
    readings.map((r) => r.observedTime),
    ...rollupColumns(readings, (seq) => seq),
  ]);
  // Most batches empty no hour (an hour empties when its counter's last asset moves on): the statement runs only when one did.
  if (emptied.rows.length > 0) {
    await DROP_EMPTY_ACTIVITIES.run(session, activityColumns(emptied.rows.map((e) => ({ key: e, hour: Number(e.hour) }))));
  }
  for (const change of plan.changes) changes.add(change);
  return plan.outcomes;
}

export const postgresAssetWrites: AssetWrites = {
  create,
  update,
  // The geo indexes are on the row's own columns: they follow the delete by themselves.
  delete: (session, inputs, changes) => deleteAssets(session, inputs, changes),
};
