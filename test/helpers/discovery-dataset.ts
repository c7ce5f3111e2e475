import assert from 'node:assert/strict';
import { REFERENCE_POSITIONS, REFERENCE_SITES, SANTANDER_ENTITIES, type ReferenceSite } from '../../src/demo/reference.js';
import { parseAssetUrn, type AssetUrn } from '../../src/domain/urn.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { bearer, type TestPlatform } from './platform.js';

/**
 * A discovery data set built from the reference data (real OrganiCity sites,
 * real asset ids and positions, 45 real Santander entities), pushed through the
 * federation interface at controlled receive times, with what each asset is
 * expected to look like.
 */

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');
/** Receive times are this far apart, asset after asset. */
export const STEP_MS = 10 * 60_000;
const SERVICE = { 'platform-service': 'opencity' };

export type SeededSite = Omit<ReferenceSite, 'city'>;

export interface SeededAsset extends AssetUrn {
  id: string;
  type: string;
  latitude: number;
  longitude: number;
  recordedAt: number;
  lastReadingAt: number;
  attributes: Record<string, { type: string; value: unknown; metadata?: Record<string, { type: string; value: unknown }> }>;
}

export interface Dataset {
  sites: SeededSite[];
  assets: SeededAsset[];
  /** The clock after seeding. */
  now: number;
  /** Ids of the users the visibility tests use. */
  users: { experimenter: string; participant: string; outsider: string; administrator: string };
}

const SITE_IDS = ['santander', 'london', 'aarhus', 'patras'];

/** Asset types by service segment (the 2016 ids carry no type). */
const TYPES: Record<string, string> = {
  environmental: 'urn:oc:entityType:iotdevice',
  parking: 'urn:oc:entityType:parkingSpot',
  publictransport: 'urn:oc:entityType:busStop',
  traffic: 'urn:oc:entityType:trafficStatus',
  irrigation: 'urn:oc:entityType:iotdevice:irrigation',
  tusbic: 'urn:oc:entityType:bikeStation',
  transport: 'urn:oc:entityType:transportStation',
  aqn: 'urn:oc:entityType:pollutionsensor',
  trash: 'urn:oc:entityType:wasteContainer',
  dev: 'urn:oc:entityType:weatherstation',
};

export const EXPERIMENTS = { first: 'exp-1', second: 'exp-2' };

function referenceSites(): SeededSite[] {
  return SITE_IDS.map((id) => {
    const site = REFERENCE_SITES.find((x) => x.id === id);
    assert.ok(site, `reference site ${id}`);
    return { id, name: site.name, latitude: site.latitude, longitude: site.longitude, countryCode: site.countryCode, country: site.country };
  });
}

/** The ids and positions of the reference data, thinned for Santander (one in `every`). */
function referenceAssets(every: number): Array<{ id: string; lon: number; lat: number }> {
  let santander = 0;
  return REFERENCE_POSITIONS
    .filter((f) => SITE_IDS.includes(f.id.split(':')[3] ?? ''))
    .filter((f) => !f.id.startsWith('urn:oc:entity:santander:') || santander++ % every === 0)
    .map((f) => ({ id: f.id, lon: f.coordinates[0], lat: f.coordinates[1] }));
}

/** Real Orion entities by id (their attributes replace the generated ones). */
function realEntities(): Map<string, Record<string, unknown>> {
  return new Map(SANTANDER_ENTITIES.map((e) => [e.id, e as Record<string, unknown>]));
}

function generatedAttributes(service: string, index: number, lon: number, lat: number): SeededAsset['attributes'] {
  const attrs: SeededAsset['attributes'] = {
    location: { type: 'geo:json', value: { type: 'Point', coordinates: [lon, lat] } },
  };
  if (service === 'environmental' || service === 'aqn') {
    attrs['temperature:ambient'] = {
      type: 'urn:oc:attributeType:temperature:ambient', value: 10 + (index % 15),
      metadata: { unit: { type: 'urn:oc:attributeType:unit', value: 'urn:oc:uom:degreeCelsius' } },
    };
  }
  if (service === 'transport') {
    attrs.description = { type: 'urn:oc:attributeType:description', value: 'Railway station', metadata: { source: { type: 'Text', value: 'TransportAPI live feed' } } };
  }
  if (service === 'parking') attrs['presenceState:parking'] = { type: 'urn:oc:attributeType:presenceState:parking', value: index % 2 === 0 };
  return attrs;
}

class Pusher {
  private tokens = new Map<string, { token: string; at: number }>();
  constructor(private readonly p: TestPlatform) {}

  private async token(site: string): Promise<string> {
    const now = this.p.clock.now();
    const cached = this.tokens.get(site);
    if (cached && now >= cached.at && now - cached.at < 200_000) return cached.token;
    const token = await this.p.clientToken(`ocsite-${site}`);
    this.tokens.set(site, { token, at: now });
    return token;
  }

  async send(site: string, method: 'POST' | 'DELETE', url: string, payload: unknown, expected: number): Promise<void> {
    const res = await this.p.app.inject({
      method, url, headers: { ...bearer(await this.token(site)), ...SERVICE, ...(payload ? { 'content-type': 'application/json' } : {}) },
      ...(payload ? { payload: payload as Record<string, unknown> } : {}),
    });
    assert.equal(res.statusCode, expected, `${method} ${url}: ${res.body}`);
  }
}

const pushers = new WeakMap<TestPlatform, Pusher>();
const pusherOf = (p: TestPlatform): Pusher => {
  let pusher = pushers.get(p);
  if (!pusher) pushers.set(p, (pusher = new Pusher(p)));
  return pusher;
};

/** Creates (or updates) an asset through federation at the platform's current time. */
export async function pushAsset(p: TestPlatform, asset: Omit<SeededAsset, 'lastReadingAt'>, update = false): Promise<SeededAsset> {
  const pusher = pusherOf(p);
  const body = { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: new Date(asset.recordedAt).toISOString() }, ...asset.attributes };
  if (update) await pusher.send(asset.site, 'POST', `/federation/v2/entities/${encodeURIComponent(asset.id)}/attrs`, body, 204);
  else await pusher.send(asset.site, 'POST', '/federation/v2/entities', { id: asset.id, type: asset.type, ...body }, 201);
  return { ...asset, lastReadingAt: p.clock.now() };
}

export async function deleteAsset(p: TestPlatform, asset: SeededAsset): Promise<void> {
  await pusherOf(p).send(asset.site, 'DELETE', `/federation/v2/entities/${encodeURIComponent(asset.id)}`, undefined, 204);
}

export function describeAsset(id: string, type: string, lon: number, lat: number, attributes: SeededAsset['attributes'], recordedAt: number): Omit<SeededAsset, 'lastReadingAt'> {
  const site = id.split(':')[3] as string;
  const urn = parseAssetUrn(id, site);
  return {
    id, type, site, service: urn.service, provider: urn.provider, group: urn.group, name: urn.name,
    experimenter: urn.experimenter, experiment: urn.experiment, latitude: lat, longitude: lon, recordedAt, attributes,
  };
}

/**
 * Seeds the platform: the real sites, about 360 real asset ids and positions
 * (one Santander asset in `every`), 5 experiment assets, and the users of the
 * visibility rule. Assets arrive STEP_MS apart from T0 on.
 */
export async function seedDiscoveryDataset(p: TestPlatform, every = 8): Promise<Dataset> {
  p.clock.set(T0);
  const sites = referenceSites();
  for (const s of sites) {
    await p.siteToken(s.id, { latitude: s.latitude, longitude: s.longitude });
    await upsertSite(p.ctx.store, {
      id: s.id, name: s.name, type: 'city', latitude: s.latitude, longitude: s.longitude,
      countryCode: s.countryCode, country: s.country, city: s.name, quota: null,
    }, T0);
  }
  await p.siteToken('experimenters', { latitude: 43.46, longitude: -3.81 });

  const experimenter = await p.userToken('alice', []);
  const participant = await p.userToken('bob', [{ role: 'participant', experiment: EXPERIMENTS.first }]);
  const outsider = await p.userToken('carol', []);
  const administrator = await p.userToken('dora', ['administrator']);

  const real = realEntities();
  const planned: Array<Omit<SeededAsset, 'lastReadingAt'>> = [];
  referenceAssets(every).forEach(({ id, lon, lat }, i) => {
    const service = id.split(':')[4] as string;
    const recordedAt = T0 - ((i * 7) % 50) * 3_600_000;
    const entity = real.get(id);
    if (entity) {
      const { id: _id, type, TimeInstant: _t, ...attributes } = entity;
      const [elat, elon] = String((attributes.position as { value: string }).value).split(',').map(Number) as [number, number];
      planned.push(describeAsset(id, type as string, elon, elat, attributes as SeededAsset['attributes'], recordedAt));
    } else {
      planned.push(describeAsset(id, TYPES[service] ?? 'urn:oc:entityType:iotdevice', lon, lat, generatedAttributes(service, i, lon, lat), recordedAt));
    }
  });
  // Experiment assets near Santander: three of alice's first experiment, two of her second.
  const experimentAssets: Array<[string, number, number]> = [
    [`${EXPERIMENTS.first}:probe-a`, -3.8045, 43.4625], [`${EXPERIMENTS.first}:probe-b`, -3.8101, 43.4601], [`${EXPERIMENTS.first}:probe-c`, -3.7990, 43.4650],
    [`${EXPERIMENTS.second}:probe-d`, -3.8030, 43.4610], [`${EXPERIMENTS.second}:probe-e`, -3.8070, 43.4640],
  ];
  for (const [rest, lon, lat] of experimentAssets) {
    const id = `urn:oc:entity:experimenters:${experimenter.userId}:${rest}`;
    planned.push(describeAsset(id, 'urn:oc:entityType:smartphone', lon, lat, {
      location: { type: 'geo:json', value: { type: 'Point', coordinates: [lon, lat] } },
      noise: { type: 'urn:oc:attributeType:soundPressureLevel:ambient', value: 41.5, metadata: { campaign: { type: 'Text', value: 'Quiet streets' } } },
    }, T0));
  }

  const assets: SeededAsset[] = [];
  for (const [i, asset] of planned.entries()) {
    p.clock.set(T0 + i * STEP_MS);
    assets.push(await pushAsset(p, asset));
  }
  p.clock.set(T0 + planned.length * STEP_MS);
  return {
    sites, assets, now: p.clock.now(),
    users: { experimenter: experimenter.userId, participant: participant.userId, outsider: outsider.userId, administrator: administrator.userId },
  };
}

/** Text order of JavaScript strings by code unit, as the stores compare ids (binary / C collation). */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
