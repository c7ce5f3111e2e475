import { mergeAttributes, readAssetCreation, readAssetUpdate, readingValue, type NgsiAttributes } from '../../src/domain/asset-body.js';
import { positionFromAttributes } from '../../src/domain/position.js';
import { formatInstant, TIME_INSTANT, TIME_INSTANT_TYPE } from '../../src/domain/time-instant.js';
import { EXPERIMENTERS_SITE } from '../../src/domain/urn.js';
import { creationBody, measure, positionAttribute, updateBody, type PositionStyle } from '../../src/demo/bodies.js';
import { PROFILES, SITE_MIX, signalsOf, type Profile, type ProfileKey } from '../../src/demo/profiles.js';
import { hashInts, Random, unit } from '../../src/demo/random.js';
import { REFERENCE_POSITIONS, REFERENCE_SITES, type ReferenceSite } from '../../src/demo/reference.js';
import type { Signal } from '../../src/demo/signals.js';
import { packableBefore } from '../../src/domain/history-retention.js';
import { BULK_STORE_TIMEOUT_MS, bulkLoad, type BulkAsset, type BulkReading, type BulkWriter } from '../../src/storage/repositories/bulk-load.js';
import { packReadings } from '../../src/storage/repositories/history-retention.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';
import { sql } from 'kysely';

/**
 * A plausible city data set of any size, bulk-loaded: the real OrganiCity
 * sites; assets clustered around their real 2016 positions (Santander's 2,426)
 * or their site's centre; types and attributes by service; a create and then
 * an update every 5 minutes per asset up to `end`, each giving one reading per
 * attribute of its body, exactly as federation records them. Everything is a
 * function of (seed, asset index), so the same spec always gives the same data.
 */

export const STEP_MS = 5 * 60_000;
/** Bump when the generated content changes: cached data sets are keyed by it. */
export const GENERATOR_VERSION = 1;

export interface DatasetSpec {
  assets: number;
  /** Readings wanted; every create records at least one per attribute, so small values are rounded up. */
  readings: number;
  /** The last update happens up to 5 minutes before this instant (default: now). */
  end?: number;
  seed?: number;
}

export interface DatasetInfo {
  assets: number;
  readings: number;
  /** Updates after the create, per asset (a few assets have one more). */
  updatesPerAsset: number;
  /** Earliest and latest receive time, epoch ms. */
  start: number;
  end: number;
  seed: number;
  generatedAt: number;
  /** Live assets per site. */
  sites: Record<string, number>;
}

const EXPERIMENTERS: ReferenceSite = {
  id: EXPERIMENTERS_SITE, name: 'Experimenters', latitude: 43.46232, longitude: -3.80998, countryCode: null, country: null, city: null,
};

/** Every site of the generated city, with its share of the assets. */
const SITE_SHARES: Array<[ReferenceSite, number]> = [
  ...REFERENCE_SITES.map((s): [ReferenceSite, number] => [s, ({ santander: 55, london: 12, aarhus: 8, patras: 5 } as Record<string, number>)[s.id] ?? 4]),
  [EXPERIMENTERS, 2],
];

export const DATASET_SITES: readonly ReferenceSite[] = SITE_SHARES.map(([s]) => s);

/** Real site names as the 2016 ids spelled them. */
const SITE_ALIASES: Record<string, string> = { patra: 'patras', experimenter: EXPERIMENTERS_SITE };

/** Real positions per "site/service", the seeds assets cluster around ((0, 0) rows are dropped). */
const SEEDS = new Map<string, Array<[number, number]>>();
for (const p of REFERENCE_POSITIONS) {
  const [, , , rawSite, service] = p.id.split(':');
  if (p.coordinates[0] === 0 && p.coordinates[1] === 0) continue;
  const site = SITE_ALIASES[rawSite ?? ''] ?? rawSite;
  for (const key of [`${site}/${service}`, `${site}/*`]) {
    if (!SEEDS.has(key)) SEEDS.set(key, []);
    SEEDS.get(key)?.push(p.coordinates);
  }
}

export interface AssetPlan {
  seed: number;
  site: ReferenceSite;
  profile: Profile;
  id: string;
  signals: Signal[];
  latitude: number;
  longitude: number;
  positionStyle: PositionStyle;
  /** Offset of this asset's reports within each 5-minute step. */
  phaseMs: number;
  /** Delay between observing and the platform receiving. */
  latencyMs: number;
}

const metresToDegrees = (metres: number) => metres / 111_320;

/** The asset with index `index` (0-based) of the data set seeded `seed`. */
export function planAsset(index: number, seed = 1): AssetPlan {
  const h = hashInts(seed, index);
  const random = new Random(h);
  const site = random.weighted(SITE_SHARES);
  const profileKey: ProfileKey = random.weighted(SITE_MIX[site.id] ?? SITE_MIX.default as Array<[ProfileKey, number]>);
  const profile: Profile = PROFILES[profileKey];
  const n = index + 1;
  let id: string;
  if (site.id === EXPERIMENTERS_SITE) {
    const experimenter = 1 + random.int(40);
    id = `urn:oc:entity:${EXPERIMENTERS_SITE}:${experimenter}:noise-map-${1 + random.int(3)}:${profile.namePrefix}${n}`;
  } else {
    const middle = profile.provider ? `${profile.service}:${profile.provider}` : profile.service;
    id = `urn:oc:entity:${site.id}:${middle}:${profile.namePrefix}${n}`;
  }
  // Near a real position of the same service when there is one (street furniture is dense), else around the centre.
  const seeds = SEEDS.get(`${site.id}/${profile.service}`) ?? SEEDS.get(`${site.id}/*`);
  const [centreLon, centreLat, spread] = seeds ? [...random.pick(seeds), 80] : [site.longitude, site.latitude, 2500];
  const latitude = centreLat + metresToDegrees(spread) * random.normal();
  const longitude = centreLon + (metresToDegrees(spread) * random.normal()) / Math.cos((centreLat * Math.PI) / 180);
  return {
    seed: h,
    site,
    profile,
    id,
    signals: signalsOf(profile, h),
    latitude,
    longitude,
    positionStyle: site.id === 'santander' ? 'coords' : 'geojson',
    phaseMs: Math.floor(unit(hashInts(h, 1)) * STEP_MS),
    latencyMs: 40 + Math.floor(unit(hashInts(h, 2)) * 1500),
  };
}

const createReadingCount = (plan: AssetPlan) => plan.signals.length + 2; // TimeInstant, position, values
const updateReadingCount = (plan: AssetPlan) => plan.signals.length + 1; // TimeInstant, values

/** When the asset reports for the `back`-th last time (0: its last report). */
const observedAt = (plan: AssetPlan, end: number, back: number) => end - plan.phaseMs - back * STEP_MS;

function createBodyOf(plan: AssetPlan, at: number) {
  return creationBody(plan.id, plan.profile.type, at, positionAttribute(plan.positionStyle, plan.latitude, plan.longitude), measure(plan.signals, plan.seed, at, plan.longitude));
}

/** The asset's row as the write path leaves it after its create and `updates` updates. */
function finalState(plan: AssetPlan, seq: number, updates: number, end: number): BulkAsset {
  const createdAt = observedAt(plan, end, updates);
  const creation = readAssetCreation(createBodyOf(plan, createdAt), plan.site.id);
  const position = positionFromAttributes(creation.attributes, plan.site) ?? plan.site;
  const lastAt = observedAt(plan, end, 0);
  let attributes: NgsiAttributes = creation.attributes;
  if (updates > 0) attributes = mergeAttributes(attributes, readAssetUpdate(updateBody(lastAt, measure(plan.signals, plan.seed, lastAt, plan.longitude))).attributes);
  return {
    seq,
    id: creation.id,
    type: creation.type,
    site: creation.urn.site,
    service: creation.urn.service,
    provider: creation.urn.provider,
    group: creation.urn.group,
    name: creation.urn.name,
    experimenter: creation.urn.experimenter,
    experiment: creation.urn.experiment,
    attrs: JSON.stringify(attributes),
    latitude: position.latitude,
    longitude: position.longitude,
    recordedAt: lastAt,
    lastReadingAt: lastAt + plan.latencyMs,
    createdAt: createdAt + plan.latencyMs,
    attributeTypes: Object.keys(attributes).map((name) => [name, (attributes[name] as NgsiAttributes[string]).type]),
  };
}

/** The readings one report gives: one per attribute of its body, in body order. */
function reportReadings(plan: AssetPlan, seq: number, at: number, isCreate: boolean, out: BulkReading[]): void {
  const recvTime = at + plan.latencyMs;
  out.push({ assetSeq: seq, name: TIME_INSTANT, type: TIME_INSTANT_TYPE, value: formatInstant(at), recvTime, observedTime: at });
  if (isCreate) {
    const [name, attribute] = positionAttribute(plan.positionStyle, plan.latitude, plan.longitude);
    out.push({ assetSeq: seq, name, type: attribute.type as string, value: readingValue(attribute.value), recvTime, observedTime: at });
  }
  for (const signal of plan.signals) {
    out.push({ assetSeq: seq, name: signal.name, type: signal.type, value: readingValue(signal.value(plan.seed, at, plan.longitude)), recvTime, observedTime: at });
  }
}

/** How many updates each asset gets so that the readings add up to the spec (every create records its own). */
function scheduleUpdates(count: number, readings: number, seed: number): { updates: Uint32Array; updatesPerAsset: number; maxBack: number } {
  const perUpdate = new Uint8Array(count);
  let createReadings = 0;
  let updateUnit = 0;
  for (let i = 0; i < count; i++) {
    const plan = planAsset(i, seed);
    perUpdate[i] = updateReadingCount(plan);
    createReadings += createReadingCount(plan);
    updateUnit += perUpdate[i] as number;
  }
  const budget = Math.max(0, readings - createReadings);
  const updatesPerAsset = updateUnit > 0 ? Math.floor(budget / updateUnit) : 0;
  const updates = new Uint32Array(count).fill(updatesPerAsset);
  let left = budget - updatesPerAsset * updateUnit;
  let maxBack = updatesPerAsset;
  for (let i = 0; i < count && left > 0; i++) {
    if ((perUpdate[i] as number) <= left) {
      updates[i] = updatesPerAsset + 1;
      maxBack = updatesPerAsset + 1;
      left -= perUpdate[i] as number;
    }
  }
  return { updates, updatesPerAsset, maxBack };
}

/** One report of one asset: its create (the first) or an update. */
export interface Report {
  index: number;
  plan: AssetPlan;
  /** Observation time (TimeInstant), epoch ms; the platform receives it `plan.latencyMs` later. */
  at: number;
  isCreate: boolean;
}

interface Schedule {
  end: number;
  seed: number;
  count: number;
  updates: Uint32Array;
  updatesPerAsset: number;
  maxBack: number;
  /** Asset indexes by descending phase: within a step, the order reports arrive in. */
  order: Uint32Array;
}

function schedule(spec: DatasetSpec): Schedule {
  const seed = spec.seed ?? 1;
  const end = Math.floor((spec.end ?? Date.now()) / 1000) * 1000;
  const count = spec.assets;
  const { updates, updatesPerAsset, maxBack } = scheduleUpdates(count, spec.readings, seed);
  const phases = new Float64Array(count);
  for (let i = 0; i < count; i++) phases[i] = planAsset(i, seed).phaseMs;
  const order = Uint32Array.from({ length: count }, (_, i) => i).sort((a, b) => (phases[b] as number) - (phases[a] as number));
  return { end, seed, count, updates, updatesPerAsset, maxBack, order };
}

/** Every report of the data set, in the order the platform would receive them. */
export function* reports(spec: DatasetSpec): Generator<Report> {
  const s = schedule(spec);
  for (let back = s.maxBack; back >= 0; back--) {
    for (const index of s.order) {
      const u = s.updates[index] as number;
      if (u < back) continue;
      const plan = planAsset(index, s.seed);
      yield { index, plan, at: observedAt(plan, s.end, back), isCreate: u === back };
    }
  }
}

/** The request body of a report, as a site client would send it. */
export function reportBody(report: Report) {
  const { plan, at } = report;
  return report.isCreate ? createBodyOf(plan, at) : updateBody(at, measure(plan.signals, plan.seed, at, plan.longitude));
}

export type Progress = (phase: string, done: number, total: number) => void;

/** Creates or updates the data set's sites (the real OrganiCity cities and the experimenters site). */
export async function writeDatasetSites(store: Store, at: number): Promise<void> {
  for (const site of DATASET_SITES) await upsertSite(store, { ...site, type: 'city', quota: null }, at);
}

/**
 * Writes the data set into the (migrated, possibly non-empty) store
 * `databaseUrl` names: sites, then assets in creation order, then readings in
 * the order the platform would have received them.
 */
export async function generateDataset(databaseUrl: string, spec: DatasetSpec, progress: Progress = () => {}): Promise<DatasetInfo> {
  const s = schedule(spec);
  const store = Store.open(databaseUrl);
  try {
    await store.migrate();
    await writeDatasetSites(store, s.end);
  } finally {
    await store.close();
  }

  let readingsWritten = 0;
  let packedAsWritten = 0;
  let start = s.end;
  const sites: Record<string, number> = {};
  await bulkLoad(databaseUrl, async (writer: BulkWriter) => {
    // Creation order (earliest first) gives each asset its seq, as the write path would.
    const seqs = new Uint32Array(s.count);
    let nextSeq = writer.firstSeq;
    let batch: BulkAsset[] = [];
    for (let back = s.maxBack; back >= 0; back--) {
      for (const i of s.order) {
        if (s.updates[i] !== back) continue;
        const plan = planAsset(i, s.seed);
        seqs[i] = nextSeq++;
        batch.push(finalState(plan, seqs[i] as number, back, s.end));
        sites[plan.site.id] = (sites[plan.site.id] ?? 0) + 1;
        if (batch.length >= 5000) {
          await writer.addAssets(batch);
          progress('assets', nextSeq - writer.firstSeq, s.count);
          batch = [];
        }
      }
    }
    await writer.addAssets(batch);
    progress('assets', s.count, s.count);

    let readings: BulkReading[] = [];
    const packing = packingAsWritten(databaseUrl, s.end, progress);
    try {
      for (const report of reports({ ...spec, end: s.end, seed: s.seed })) {
        reportReadings(report.plan, seqs[report.index] as number, report.at, report.isCreate, readings);
        if (readings.length >= 20_000) {
          start = Math.min(start, (readings[0] as BulkReading).recvTime);
          await writer.addReadings(readings);
          readingsWritten += readings.length;
          progress('readings', readingsWritten, spec.readings);
          await packing.written((readings[readings.length - 1] as BulkReading).recvTime);
          readings = [];
        }
      }
    } finally {
      packedAsWritten = await packing.close();
    }
    if (readings.length > 0) start = Math.min(start, (readings[0] as BulkReading).recvTime);
    await writer.addReadings(readings);
    readingsWritten += readings.length;
    progress('readings', readingsWritten, readingsWritten);
  });

  await packAsInService(databaseUrl, s.end, progress, packedAsWritten);
  return { assets: s.count, readings: readingsWritten, updatesPerAsset: s.updatesPerAsset, start, end: s.end, seed: s.seed, generatedAt: Date.now(), sites };
}

/**
 * Packs the days that ended as the readings are written, as a server's background does day after
 * day: the readings table then only ever holds the last days (and the readings received late),
 * instead of the whole history packed series by series at the end, each series' rows scattered
 * over a table larger than memory. Only where the store packs (PostgreSQL); a no-op elsewhere.
 */
function packingAsWritten(databaseUrl: string, end: number, progress: Progress) {
  const store = /^postgres(ql)?:/.test(databaseUrl) ? Store.open(databaseUrl, { timeoutMs: BULK_STORE_TIMEOUT_MS }) : undefined;
  let packedBefore = Number.NEGATIVE_INFINITY;
  let packed = 0;
  return {
    /** Every reading received up to `through` is written (the generator writes them in receive order). */
    async written(through: number): Promise<void> {
      // A day is packed once the day after it has ended too, as the service packs (packableBefore).
      const before = Math.min(packableBefore(through), packableBefore(end));
      if (!store || before <= packedBefore) return;
      packedBefore = before;
      packed += await packReadings(store, before, () => false, GENERATOR_PACK_CHUNK);
      // The space of what moved is reused by the next days' rows, as autovacuum would let it be at a server's pace.
      await sql`vacuum readings`.execute(store.read);
      progress('packed readings', packed, packed);
    },
    /** How many readings it packed. */
    async close(): Promise<number> {
      await store?.close();
      return packed;
    },
  };
}

/** Readings one write of the generator's packing packs: nothing else writes meanwhile. */
const GENERATOR_PACK_CHUNK = 65_536;

/**
 * Leaves the store as a server in service since the data set began would
 * hold it at `end`: where the store packs the readings of ended days, they are
 * packed (as its background does, src/services/history-pruning.ts), and the
 * table they left is compacted, as the space of a table that only ever holds
 * the last days is reused by the days that follow.
 */
async function packAsInService(databaseUrl: string, end: number, progress: Progress, packedAsWritten: number): Promise<void> {
  const store = Store.open(databaseUrl, { timeoutMs: BULK_STORE_TIMEOUT_MS });
  try {
    const packed = packedAsWritten + await packReadings(store, packableBefore(end), () => false, GENERATOR_PACK_CHUNK);
    if (packed === 0) return;
    progress('packed readings', packed, packed);
    // Outside any transaction, as VACUUM must be.
    await sql`vacuum full readings`.execute(store.read);
  } finally {
    await store.close();
  }
}
