import { activityHour } from './activity.js';
import type { NgsiAttribute } from './asset-body.js';
import { counterKey, Tally, type CounterKey, type HourMove } from './asset-counters.js';
import { readingsOf, type AssetChange, type UpdateOutcome } from './asset-writes.js';
import { applyAttributeWrite, isAttributeRefusal, setsValues } from './attribute-writes.js';
import { updatedChange, type ChangeRecord } from './changes.js';

/**
 * What a batch of updates changes, decided once for both stores: each update
 * applies in order to a live asset, its attributes as its mode says
 * (./attribute-writes.ts; by default replaced or added); an update whose
 * asset does not exist, or has another type than its `expectedType`, or whose
 * attributes are refused, writes nothing. Each changed asset is then written once.
 * An update observed before the asset's current state (a site pushing the
 * readings it buffered while offline) adds to the history (and to the change
 * log) only: the current state only ever moves forward in observation time.
 */

/** A live asset as the store holds it before the batch. */
export interface CurrentAsset {
  id: string;
  seq: number;
  type: string;
  site: string;
  service: string | null;
  provider: string | null;
  /** JSON text of its attributes. */
  attrs: string;
  latitude: number;
  longitude: number;
  /** TimeInstant of the current state, epoch ms (int8 may come as text). */
  recorded_at: number | string;
  last_reading_at: number;
}

/** An asset as the updates of the batch leave it. */
export interface UpdatedAsset {
  current: CurrentAsset;
  seq: number;
  attrs: Record<string, NgsiAttribute>;
  recordedAt: number;
  lastReadingAt: number;
  latitude: number;
  longitude: number;
  /** Its position changed. */
  moved: boolean;
}

/** One reading row, of any asset. */
export interface ReadingRow {
  seq: number;
  recvTime: number;
  /** The TimeInstant the reading was sent with. */
  observedTime: number;
  name: string;
  type: string;
  value: string;
}

/** An attribute (name and type) an asset carries. */
export interface AttributeRow {
  seq: number;
  name: string;
  type: string;
}

export interface UpdatePlan {
  /** Per update, in order, what it came to (only an 'updated' one is written; a refusal names the attributes). */
  outcomes: UpdateOutcome[];
  /** The assets the batch changed, each once, in the order the store read them. */
  written: UpdatedAsset[];
  /** Readings appended, in request order. */
  readings: ReadingRow[];
  /** Attributes whose name is new to the asset, or whose type changed. */
  attributes: AttributeRow[];
  /** Assets whose last reading moved to another activity hour, grouped. */
  hourMoves: HourMove[];
  /** The change each written update records in the change log, in request order: the attributes it set. */
  changes: ChangeRecord[];
}

export function planUpdates(inputs: readonly AssetChange[], current: Iterable<CurrentAsset>): UpdatePlan {
  const assets = new Map<string, UpdatedAsset & { changed: boolean }>();
  for (const row of current) {
    assets.set(row.id, {
      current: row, seq: Number(row.seq), attrs: JSON.parse(row.attrs) as Record<string, NgsiAttribute>, recordedAt: Number(row.recorded_at),
      lastReadingAt: Number(row.last_reading_at), latitude: row.latitude, longitude: row.longitude, moved: false, changed: false,
    });
  }
  const outcomes: UpdateOutcome[] = [];
  const readings: ReadingRow[] = [];
  const attributes: AttributeRow[] = [];
  const changes: ChangeRecord[] = [];
  // Assets of one counter moving between the same two hours are counted together.
  const hourMoves = new Tally<{ key: CounterKey; from: number; to: number }>();
  for (const input of inputs) {
    const asset = assets.get(input.id);
    if (!asset || (input.expectedType !== undefined && asset.current.type !== input.expectedType)) {
      outcomes.push('not-found');
      continue;
    }
    const attrs = applyAttributeWrite(asset.attrs, input);
    if (isAttributeRefusal(attrs)) {
      outcomes.push(attrs);
      continue;
    }
    // The bound holds for the asset as the update would leave it: the attributes it keeps and those it adds.
    if (input.maxAttributes !== undefined && Object.keys(attrs).length > input.maxAttributes) {
      outcomes.push('too-many-attributes');
      continue;
    }
    const { seq } = asset;
    for (const r of readingsOf(input.changes)) {
      readings.push({ seq, recvTime: input.receivedAt, observedTime: input.recordedAt, name: r.name, type: r.type, value: r.value });
    }
    if (setsValues(input) && input.recordedAt < asset.recordedAt) {
      // History only; the names it records must still be listed as recorded.
      for (const name of Object.keys(input.changes)) {
        if (!Object.hasOwn(asset.attrs, name)) attributes.push({ seq, name, type: (input.changes[name] as NgsiAttribute).type });
      }
      outcomes.push('updated');
      // Every committed write is in the change log; its TimeInstant tells a reader it came late.
      changes.push(updatedChange(input, asset.current));
      continue;
    }
    for (const name of Object.keys(input.changes)) {
      const change = input.changes[name] as NgsiAttribute;
      if (!Object.hasOwn(asset.attrs, name) || asset.attrs[name]?.type !== change.type) attributes.push({ seq, name, type: change.type });
    }
    asset.attrs = attrs;
    asset.changed = true;
    outcomes.push('updated');
    changes.push(updatedChange(input, asset.current));
    const to = input.position;
    if (to && (to.latitude !== asset.latitude || to.longitude !== asset.longitude)) {
      asset.latitude = to.latitude;
      asset.longitude = to.longitude;
      asset.moved = true;
    }
    // A write that only removes attributes observes nothing: the asset keeps its times.
    if (!setsValues(input)) continue;
    const [from, toHour] = [activityHour(asset.lastReadingAt), activityHour(input.receivedAt)];
    if (from !== toHour) {
      const key = counterKey(asset.current);
      hourMoves.add(key, [from, toHour], { key, from, to: toHour });
    }
    asset.lastReadingAt = input.receivedAt;
    asset.recordedAt = input.recordedAt;
  }
  return {
    outcomes,
    written: [...assets.values()].filter((a) => a.changed),
    readings,
    attributes,
    hourMoves: [...hourMoves.groupsWithCounts()].map(({ value, n }) => ({ ...value, n })),
    changes,
  };
}

/** A statement may not upsert one row twice: a name repeated for an asset keeps its last type. */
export function latestAttributeRows(rows: readonly AttributeRow[]): AttributeRow[] {
  const latest = new Map<string, AttributeRow>();
  for (const row of rows) latest.set(`${row.seq}\u0000${row.name}`, row);
  return [...latest.values()];
}
