import { TIME_INSTANT } from '../domain/time-instant.js';
import { EXPERIMENTERS_SITE, parseAssetUrn } from '../domain/urn.js';
import { creationBody, positionAttribute, timeInstant, type Measurement, type NgsiBody, type PositionStyle } from './bodies.js';
import { profileOf } from './profiles.js';
import { signalsOf } from './profiles.js';
import { irregularityOf, type Irregularity } from './irregular.js';
import { hashString } from './random.js';
import { REFERENCE_POSITIONS, REFERENCE_SITES, SANTANDER_ENTITIES, type ReferenceEntity, type ReferenceSite } from './reference.js';
import { SIGNALS, type Signal } from './signals.js';

/**
 * The demo city: the real OrganiCity sites, the 45 real Santander entities as
 * they were in 2016, and an asset at each of the 2,426 real positions, with the
 * signals its service measured. Pure data: loading it is src/demo/loader.ts.
 */

/** The experimenters site is an ordinary site (DESIGN.md); its real assets were phones in Santander. */
export const EXPERIMENTERS: ReferenceSite = {
  id: EXPERIMENTERS_SITE, name: 'Experimenters', latitude: 43.46232, longitude: -3.80998, countryCode: null, country: null, city: null,
};

export const DEMO_SITES: readonly ReferenceSite[] = [...REFERENCE_SITES, EXPERIMENTERS];

/** Site names of the 2016 ids that differ from today's sites. */
const SITE_ALIASES: Record<string, string> = { patra: 'patras', experimenter: EXPERIMENTERS_SITE };

export interface DemoAsset {
  id: string;
  site: ReferenceSite;
  type: string;
  /** Seed of its signals. */
  seed: number;
  signals: Signal[];
  /** Longitude used for local time in the daily cycles. */
  longitude: number;
  /** The position attribute it is created with; none when the real position was unknown (the site's centre applies). */
  position: [string, Record<string, unknown>] | undefined;
  /** One of the real 2016 entities: created with its real values, updated with values written as it wrote them. */
  real: ReferenceEntity | undefined;
  /** Keeps reporting under `opencity demo --live` (every asset gets the loaded history). */
  featured: boolean;
  /** Distance to its site's centre, in degrees (for choosing featured assets). */
  distance: number;
  /** Minutes between two of its reports: its kind's cadence. */
  cadenceMinutes: number;
  /** Stopped days ago, or silent for some hours (src/demo/irregular.ts). */
  irregularity: Irregularity;
}

/** Real entities wrote numbers as text with two decimals ("13.74"). */
const asText = (value: unknown): unknown => (typeof value === 'number' ? value.toFixed(2) : value);

/** The values an asset reports at `time`. */
export function measurements(asset: DemoAsset, time: number): Measurement[] {
  return asset.signals.map((signal) => {
    const value = signal.value(asset.seed, time, asset.longitude);
    return { signal, value: asset.real ? asText(value) : value };
  });
}

/** The create request of `asset`, observed at `time`. */
export function creationOf(asset: DemoAsset, time: number): NgsiBody {
  if (asset.real) {
    // The real entity as Orion returned it, observed now (its 2015 TimeInstant would read as long dead).
    return { ...asset.real, [TIME_INSTANT]: timeInstant(time) };
  }
  return creationBody(asset.id, asset.type, time, asset.position, measurements(asset, time));
}

const SIGNAL_BY_NAME = new Map<string, Signal>(Object.values(SIGNALS).map((s) => [s.name, s]));

function realAsset(entity: ReferenceEntity, site: ReferenceSite): DemoAsset {
  const [lat, lon] = String((entity.position as { value?: string } | undefined)?.value ?? '').split(',').map(Number);
  const signals = Object.keys(entity).flatMap((name) => SIGNAL_BY_NAME.get(name) ?? []);
  const latitude = Number.isFinite(lat) ? (lat as number) : site.latitude;
  const longitude = Number.isFinite(lon) ? (lon as number) : site.longitude;
  const seed = hashString(entity.id);
  return {
    id: entity.id, site, type: entity.type, seed, signals, longitude, position: undefined, real: entity, featured: true,
    distance: Math.hypot(latitude - site.latitude, longitude - site.longitude),
    cadenceMinutes: profileOf(site.id, parseAssetUrn(entity.id, site.id).service).cadenceMinutes,
    // The real entities are the ones a visitor opens first: they keep reporting.
    irregularity: { stoppedBeforeEnd: null, gapBeforeEnd: null },
  };
}

/** How many Santander assets of each service keep reporting live, nearest to the centre first. */
const FEATURED_IN_SANTANDER: Record<string, number> = { environmental: 30, parking: 40, traffic: 20, irrigation: 12, tusbic: 16, publictransport: 10 };

/**
 * Every asset of the demo city. Assets of the real entities come first; then
 * one per real position (its id made a valid id of today's sites).
 */
export function demoAssets(): DemoAsset[] {
  const sites = new Map(DEMO_SITES.map((s) => [s.id, s]));
  const santander = sites.get('santander') as ReferenceSite;
  const assets: DemoAsset[] = SANTANDER_ENTITIES.map((e) => realAsset(e, santander));
  const seen = new Set(assets.map((a) => a.id));

  for (const { id: realId, coordinates: [lon, lat] } of REFERENCE_POSITIONS) {
    const parts = realId.split(':');
    const siteId = SITE_ALIASES[parts[3] ?? ''] ?? parts[3] ?? '';
    const site = sites.get(siteId);
    if (!site) continue;
    const id = ['urn', 'oc', 'entity', siteId, ...parts.slice(4)].join(':');
    if (seen.has(id)) continue;
    seen.add(id);
    const urn = parseAssetUrn(id, siteId);
    const profile = profileOf(siteId, siteId === EXPERIMENTERS_SITE ? 'environmental' : urn.service);
    const seed = hashString(id);
    const known = !(lon === 0 && lat === 0);
    const style: PositionStyle = siteId === 'santander' ? 'coords' : 'geojson';
    assets.push({
      id, site, type: profile.type, seed, signals: signalsOf(profile, seed),
      longitude: known ? lon : site.longitude,
      position: known ? positionAttribute(style, lat, lon) : undefined,
      real: undefined, featured: false,
      distance: known ? Math.hypot(lat - site.latitude, lon - site.longitude) : Infinity,
      cadenceMinutes: profile.cadenceMinutes,
      irregularity: irregularityOf(seed),
    });
  }

  // Featured (live): every asset outside Santander (few, and each city should move), and Santander's central ones by service.
  const bySantanderService = new Map<string, DemoAsset[]>();
  for (const a of assets) {
    if (a.real) continue;
    if (a.site.id !== 'santander') {
      a.featured = true;
      continue;
    }
    const service = parseAssetUrn(a.id, 'santander').service ?? '';
    if (!bySantanderService.has(service)) bySantanderService.set(service, []);
    bySantanderService.get(service)?.push(a);
  }
  for (const [service, list] of bySantanderService) {
    list.sort((a, b) => a.distance - b.distance || a.id.localeCompare(b.id));
    for (const a of list.slice(0, FEATURED_IN_SANTANDER[service] ?? 0)) a.featured = true;
  }
  return assets;
}
