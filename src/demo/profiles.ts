import { hashInts, unit } from './random.js';
import { SIGNALS, type Signal, type SignalKey } from './signals.js';

/**
 * What kind of asset each service of the real OrganiCity sites was, and what it
 * measured: the asset type, and the signals it reports. Keyed by site and
 * service as they appear in the real asset ids (`urn:oc:entity:santander:parking:np3700`).
 */
export interface Profile {
  service: string;
  /** Third URN segment, when the real ids had one (`fixed`, `busStop`, `TransportAPI`). */
  provider: string | null;
  /** NGSI entity type (`urn:oc:entityType:…`). */
  type: string;
  /** Prefix of generated asset names (real parking spots were `np3700`). */
  namePrefix: string;
  signals: SignalKey[];
  /** Signals only some assets have: [signal, share of assets]. */
  optional?: Array<[SignalKey, number]>;
  /** Minutes between two reports: what such a device sends (a multiple of 30, the loader's smallest step). */
  cadenceMinutes: number;
}

const entityType = (name: string) => `urn:oc:entityType:${name}`;

export const PROFILES = {
  environmental: { service: 'environmental', provider: 'fixed', type: entityType('iotdevice'), namePrefix: '', signals: ['temperature', 'illuminance', 'battery'], optional: [['noise', 0.15], ['humidity', 0.35]], cadenceMinutes: 120 },
  parking: { service: 'parking', provider: null, type: entityType('parkingSpot'), namePrefix: 'np', signals: ['parking', 'battery'], cadenceMinutes: 120 },
  traffic: { service: 'traffic', provider: 'fixed', type: entityType('iotdevice:vehiclecount'), namePrefix: '', signals: ['trafficIntensity', 'roadOccupancy', 'averageSpeed'], cadenceMinutes: 30 },
  irrigation: { service: 'irrigation', provider: 'fixed', type: entityType('iotdevice:irrigation'), namePrefix: '', signals: ['soilMoisture', 'soilTemperature', 'humidity'], cadenceMinutes: 60 },
  busStop: { service: 'publictransport', provider: 'busStop', type: entityType('busStop'), namePrefix: '', signals: ['peopleWaiting'], cadenceMinutes: 360 },
  bikeStation: { service: 'tusbic', provider: 'bikestation', type: entityType('bikeStation'), namePrefix: '', signals: ['bikesAvailable'], cadenceMinutes: 60 },
  trainStation: { service: 'transport', provider: 'TransportAPI', type: entityType('trainstation'), namePrefix: 'S', signals: ['peopleWaiting'], cadenceMinutes: 60 },
  airQuality: { service: 'aqn', provider: null, type: entityType('pollutionsensor'), namePrefix: 'Q', signals: ['no2', 'o3', 'particles'], cadenceMinutes: 60 },
  environmentalStation: { service: 'environmental', provider: 'fixed', type: entityType('environmentalstation'), namePrefix: '', signals: ['temperature', 'humidity', 'noise'], cadenceMinutes: 60 },
  wasteContainer: { service: 'trash', provider: 'aak', type: entityType('iotdevice'), namePrefix: 'c', signals: ['wasteFill', 'wasteTemperature'], cadenceMinutes: 180 },
  weatherStation: { service: 'weatherstation', provider: 'fixed', type: entityType('weatherstation'), namePrefix: '', signals: ['temperature', 'humidity', 'windSpeed', 'pressure'], cadenceMinutes: 30 },
  device: { service: 'dev', provider: 'fixed', type: entityType('iotdevice'), namePrefix: '', signals: ['temperature', 'humidity'], cadenceMinutes: 60 },
  smartphone: { service: 'environmental', provider: null, type: entityType('smartphone'), namePrefix: '', signals: ['noise', 'illuminance', 'temperature'], cadenceMinutes: 180 },
} satisfies Record<string, Profile>;

export type ProfileKey = keyof typeof PROFILES;

/** The profile of a real asset id's site and service (London's environmental sensors were full stations). */
export function profileOf(site: string, service: string | null): Profile {
  switch (service) {
    case 'environmental': return site === 'london' ? PROFILES.environmentalStation : site === 'experimenters' ? PROFILES.smartphone : PROFILES.environmental;
    case 'parking': return PROFILES.parking;
    case 'traffic': return PROFILES.traffic;
    case 'irrigation': return PROFILES.irrigation;
    case 'publictransport': return PROFILES.busStop;
    case 'tusbic': return PROFILES.bikeStation;
    case 'transport': return PROFILES.trainStation;
    case 'aqn': return PROFILES.airQuality;
    case 'trash': return PROFILES.wasteContainer;
    case 'weatherstation': return PROFILES.weatherStation;
    default: return PROFILES.device;
  }
}

/** How the assets of a generated city split between profiles: [profile, weight]. */
export const SITE_MIX: Record<string, Array<[ProfileKey, number]>> = {
  santander: [['busStop', 35], ['environmental', 30], ['parking', 20], ['traffic', 8], ['irrigation', 4], ['bikeStation', 3]],
  london: [['trainStation', 30], ['airQuality', 30], ['environmentalStation', 40]],
  aarhus: [['wasteContainer', 50], ['environmental', 30], ['parking', 20]],
  patras: [['weatherStation', 10], ['environmental', 50], ['parking', 40]],
  experimenters: [['smartphone', 100]],
  default: [['environmental', 50], ['parking', 30], ['traffic', 20]],
};

/** The signals an asset of `profile` seeded `seed` reports (optional ones for a stable share of assets). */
export function signalsOf(profile: Profile, seed: number): Signal[] {
  const keys: SignalKey[] = [...profile.signals];
  for (const [key, share] of profile.optional ?? []) {
    if (unit(hashInts(seed, 101, key.length, key.charCodeAt(0))) < share && !keys.includes(key)) keys.push(key);
  }
  return keys.map((k) => SIGNALS[k]);
}
