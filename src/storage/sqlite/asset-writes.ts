import { sql } from 'kysely';
import { attributesOf, creationCounts, CreateDecisions } from '../../domain/create-decisions.js';
import { latestAttributeRows, planUpdates, type AttributeRow, type CurrentAsset, type ReadingRow } from '../../domain/update-plan.js';
import { readingsOf, type CreateInput, type CreateOutcome, type UpdateOutcome } from '../../domain/asset-writes.js';
import { createdChange, type ChangeSink } from '../../domain/changes.js';
import { EXPERIMENTERS_SITE } from '../../domain/urn.js';
import type { AssetWrites } from '../ports.js';
import { concatRows, PreparedQuery, rowRuns, type Session } from '../prepared-query.js';
import { deleteAssets, incrementActivity, incrementCount, moveActivity, registerType } from '../shared/asset-counters.js';
import { addToRollups } from '../shared/reading-rollups.js';
import { connectionTerms, type ConnectionTerms, termNumbers } from '../reading-terms.js';
import { sentValue } from './sent-value.js';

/**
 * SQLite's asset writes. In process (the writer's thread), a statement costs
 * a few microseconds: prepared statements per asset, and multi-row statements
 * of a few fixed sizes for readings, attributes and positions.
 */

/** Rows per multi-row statement of assets, attributes and positions at most. */
const CHUNK = 16;
const chunks = <T>(items: readonly T[], size = CHUNK): T[][] => rowRuns(items, size);

type SiteRow = { quota: number | null; latitude: number; longitude: number; assets: number | string | null };

/** The site row with its count of live assets, read once per site and batch (the write lock keeps it as read). */
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

/** The live assets to update (the write lock keeps them as read). */
const CURRENT_ASSETS = new PreparedQuery<string[], CurrentAsset>((n) => n, (db, ids, _dialect, n) =>
  db.selectFrom('assets')
    .select(['id', 'seq', 'type', 'site', 'service', 'provider', 'attrs', 'latitude', 'longitude', 'recorded_at', 'last_reading_at'])
    .where('id', 'in', ids.slice(0, n)).where('deleted_at', 'is', null));

const WRITE_STATE = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number], never>(4, (db, [seq, attrs, recordedAt, receivedAt]) =>
  db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt }).where('seq', '=', seq));

const WRITE_STATE_AND_POSITION = new PreparedQuery<[seq: number, attrs: string, recordedAt: number, receivedAt: number, latitude: number, longitude: number], never>(6,
  (db, [seq, attrs, recordedAt, receivedAt, latitude, longitude]) =>
    db.updateTable('assets').set({ attrs, recorded_at: recordedAt, last_reading_at: receivedAt, latitude, longitude }).where('seq', '=', seq));

/** Readings (variant: rows), their observation time kept as its distance from the receive time, their value as ./sent-value.ts keeps it. */
const READINGS = new PreparedQuery<unknown[], never>((rows) => 7 * rows, (_db, p, _dialect, rows) =>
  sql`insert into readings (seq, asset_seq, recv_time, observed_offset, name_id, type_id, sent_value) values ${sql.join(Array.from({ length: rows }, (_, i) =>
    sql`(${sql.join(Array.from({ length: 7 }, (_c, k) => sql`${p[7 * i + k]}`))})`))}`);

/** Numbers the terms no reading had yet (variant: terms); the terms it numbered. */
const ADD_TERMS = new PreparedQuery<string[], { term: string }>((n) => n, (_db, terms, _dialect, n) =>
  sql`insert or ignore into reading_terms (term) values ${sql.join(terms.slice(0, n).map((t) => sql`(${t})`))} returning term`);

const TERM_IDS = new PreparedQuery<string[], { id: number; term: string }>((n) => n, (db, terms, _dialect, n) =>
  db.selectFrom('reading_terms').select(['id', 'term']).where('term', 'in', terms.slice(0, n)));

const knownByConnection = new WeakMap<object, ConnectionTerms<number>>();

/** The numbers of the readings' names and types in reading_terms (termNumbers), a few terms a statement. */
const termIds = (session: Session, rows: readonly ReadingRow[]): Promise<(term: string) => number | undefined> =>
  termNumbers(connectionTerms(knownByConnection, session.conn), rows, async (wanted) => {
    const added: string[] = [];
    const numbers: Array<[string, number]> = [];
    for (const run of chunks(wanted)) {
      for (const row of (await ADD_TERMS.run(session, run, run.length)).rows) added.push(row.term);
      for (const row of (await TERM_IDS.run(session, run, run.length)).rows) numbers.push([row.term, Number(row.id)]);
    }
    return { transaction: session.transaction, added, numbers };
  });

/** Takes `n` reading numbers (migration 1300-readings-clustered); the last of them. */
const TAKE_READING_SEQS = new PreparedQuery<[n: number], { last: number }>(1, (_db, [n]) =>
  sql`update reading_seq set last = last + ${n} where id = 1 returning last`);

const ATTRIBUTE_TYPES = new PreparedQuery<unknown[], never>((rows) => 3 * rows, (db, p, _dialect, rows) =>
  db.insertInto('asset_attributes')
    .values(Array.from({ length: rows }, (_, i) => ({ asset_seq: p[3 * i], name: p[3 * i + 1], type: p[3 * i + 2] })))
    .onConflict((oc) => oc.columns(['asset_seq', 'name']).doUpdateSet((eb) => ({ type: eb.ref('excluded.type') }))));

/** Positions of live assets in the R*Tree of city assets, or of the experimenters' (variant: rows). */
const positionsInto = (tree: 'city_positions' | 'experiment_positions') => new PreparedQuery<unknown[], never>((rows) => 3 * rows, (_db, p, _dialect, rows) =>
  sql`insert or replace into ${sql.table(tree)} (id, min_lon, max_lon, min_lat, max_lat) values ${sql.join(Array.from({ length: rows }, (_, i) =>
    sql`(${p[3 * i]}, ${p[3 * i + 1]}, ${p[3 * i + 1]}, ${p[3 * i + 2]}, ${p[3 * i + 2]})`))}`);
const CITY_POSITIONS = positionsInto('city_positions');
const EXPERIMENT_POSITIONS = positionsInto('experiment_positions');

const UNINDEX_CITY = new PreparedQuery<[seq: number], never>(1, (_db, [seq]) => sql`delete from city_positions where id = ${seq}`);
const UNINDEX_EXPERIMENT = new PreparedQuery<[seq: number], never>(1, (_db, [seq]) => sql`delete from experiment_positions where id = ${seq}`);

interface IndexedPosition {
  seq: number;
  latitude: number;
  longitude: number;
  site: string;
}

/** Keeps the R*Trees in step with the positions of live assets (created or moved). */
async function indexPositions(session: Session, positions: readonly IndexedPosition[]): Promise<void> {
  const rowOf = (p: IndexedPosition) => [p.seq, p.longitude, p.latitude];
  for (const rows of chunks(positions.filter((p) => p.site !== EXPERIMENTERS_SITE))) await CITY_POSITIONS.runRows(session, rows, rowOf);
  for (const rows of chunks(positions.filter((p) => p.site === EXPERIMENTERS_SITE))) await EXPERIMENT_POSITIONS.runRows(session, rows, rowOf);
}

async function unindexPosition(session: Session, seq: number): Promise<void> {
  await UNINDEX_CITY.run(session, [seq]);
  await UNINDEX_EXPERIMENT.run(session, [seq]);
}

/** Appends readings to history, and to the rollups of their series in the same transaction. */
async function addReadings(session: Session, rows: readonly ReadingRow[]): Promise<void> {
  if (rows.length === 0) return;
  const last = Number((await TAKE_READING_SEQS.run(session, [rows.length])).rows[0]?.last);
  const idOf = await termIds(session, rows);
  let next = last - rows.length + 1;
  for (const chunk of rowRuns(rows)) {
    await READINGS.runRows(session, chunk, (r) => [next++, r.seq, r.recvTime, r.observedTime - r.recvTime, idOf(r.name), idOf(r.type), sentValue(r.value, r.observedTime)]);
  }
  await addToRollups(session, rows);
}

async function recordAttributes(session: Session, rows: readonly AttributeRow[]): Promise<void> {
  for (const chunk of chunks(latestAttributeRows(rows))) {
    await ATTRIBUTE_TYPES.runRows(session, chunk, (r) => [r.seq, r.name, r.type]);
  }
}

/**
 * Creates assets, or revives deleted ones with their ids (fresh attributes,
 * same seq, so their history stays attached), decided in order: an id a live
 * asset has is found by the insert itself, which then writes nothing.
 */
async function create(session: Session, inputs: readonly CreateInput[], changes: ChangeSink): Promise<CreateOutcome[]> {
  const decisions = new CreateDecisions();
  const outcomes: CreateOutcome[] = [];
  const created: Array<{ input: CreateInput; seq: number }> = [];
  const positions: IndexedPosition[] = [];
  for (const input of inputs) {
    const { asset } = input;
    const { urn } = asset;
    if (!decisions.sites.has(urn.site)) {
      const row = (await SITE_WITH_COUNT.run(session, [urn.site])).rows[0];
      decisions.sites.set(urn.site, row ? { quota: row.quota, latitude: row.latitude, longitude: row.longitude, assets: Number(row.assets ?? 0) } : null);
    }
    const refusal = decisions.refusal(input);
    if (refusal) {
      outcomes.push(refusal);
      continue;
    }
    const position = decisions.positionOf(asset);
    const row = (await UPSERT_ASSET.run(session, [
      asset.id, asset.type, urn.site, urn.service, urn.provider, urn.group, urn.name, urn.experimenter, urn.experiment,
      JSON.stringify(asset.attributes), position.latitude, position.longitude, asset.recordedAt, asset.receivedAt,
    ])).rows[0];
    if (!row) {
      outcomes.push({ kind: 'exists' });
      continue;
    }
    const seq = Number(row.seq);
    decisions.made(input);
    created.push({ input, seq });
    positions.push({ seq, ...position, site: urn.site });
    outcomes.push({ kind: 'created', seq });
  }
  if (created.length === 0) return outcomes;

  // What the creates keep beside their rows, in few statements for the whole batch.
  await addReadings(session, concatRows(created, ({ input: { asset }, seq }) =>
    readingsOf(asset.attributes).map((r) => ({ seq, recvTime: asset.receivedAt, observedTime: asset.recordedAt, name: r.name, type: r.type, value: r.value }))));
  await recordAttributes(session, concatRows(created, ({ input: { asset }, seq }) => attributesOf(asset).map((a) => ({ seq, ...a }))));
  const { counts, activity, types } = creationCounts(created.map((c) => c.input));
  for (const { key, n } of counts) await incrementCount(session, key, n);
  for (const { key, hour, n } of activity) await incrementActivity(session, key, hour, n);
  for (const type of types) await registerType(session, type);
  await indexPositions(session, positions);
  for (const { input } of created) changes.add(createdChange(input.asset));
  return outcomes;
}

/** Applies updates in order (src/domain/update-plan.ts), writing each changed asset once. */
async function update(session: Session, inputs: Parameters<AssetWrites['update']>[1], changes: ChangeSink): Promise<UpdateOutcome[]> {
  const current: CurrentAsset[] = [];
  for (const chunk of chunks([...new Set(inputs.map((i) => i.id))])) current.push(...(await CURRENT_ASSETS.run(session, chunk, chunk.length)).rows);
  const plan = planUpdates(inputs, current);
  const moved: IndexedPosition[] = [];
  for (const asset of plan.written) {
    const attrs = JSON.stringify(asset.attrs);
    if (asset.moved) {
      await WRITE_STATE_AND_POSITION.run(session, [asset.seq, attrs, asset.recordedAt, asset.lastReadingAt, asset.latitude, asset.longitude]);
      moved.push({ seq: asset.seq, latitude: asset.latitude, longitude: asset.longitude, site: asset.current.site });
    } else {
      await WRITE_STATE.run(session, [asset.seq, attrs, asset.recordedAt, asset.lastReadingAt]);
    }
  }
  await addReadings(session, plan.readings);
  await recordAttributes(session, plan.attributes);
  await moveActivity(session, plan.hourMoves);
  await indexPositions(session, moved);
  for (const change of plan.changes) changes.add(change);
  return plan.outcomes;
}

export const sqliteAssetWrites: AssetWrites = {
  create,
  update,
  delete: (session, inputs, changes) => deleteAssets(session, inputs, changes, unindexPosition),
};
