import { hashInts, unit } from './random.js';

/**
 * Plausible sensor signals with daily cycles. A value depends only on the
 * asset's seed, the signal and the time, so any reading can be recomputed and
 * readings of one asset stay coherent from one step to the next.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface Signal {
  /** Attribute name as the real sites sent it (`temperature:ambient`). */
  name: string;
  /** NGSI attribute type (`urn:oc:attributeType:…`). */
  type: string;
  /** The value at `time` for the asset seeded `seed` at longitude `lon` (for local time). */
  value(seed: number, time: number, lon: number): number | boolean;
}

/** Local hour of day (0–24, fractional), from UTC and the longitude: good enough for a daily cycle. */
export function localHour(time: number, lon: number): number {
  const h = ((time / HOUR_MS) + lon / 15) % 24;
  return h < 0 ? h + 24 : h;
}

/** Noise in [-1, 1) for (asset, signal, time step): repeatable, uncorrelated between steps. */
const jitter = (seed: number, salt: number, time: number, stepMs = 60_000): number =>
  unit(hashInts(seed, salt, Math.floor(time / stepMs))) * 2 - 1;

/** A fixed per-asset offset in [-1, 1). */
const bias = (seed: number, salt: number): number => unit(hashInts(seed, salt)) * 2 - 1;

const gauss = (x: number, mu: number, sigma: number): number => Math.exp(-((x - mu) ** 2) / (2 * sigma * sigma));
const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** 1 at mid-afternoon, -1 before dawn. */
const warmth = (h: number): number => Math.sin((2 * Math.PI * (h - 9)) / 24);
/** City activity: ~0.1 at night, ~1 in the day, with rush-hour shoulders. */
const activity = (h: number): number => clamp(0.1 + 0.9 * (gauss(h, 13, 5) * 0.7 + gauss(h, 8.5, 1.3) * 0.3 + gauss(h, 18, 1.6) * 0.35), 0, 1);
/** Daylight, 0 at night, 1 at solar noon. */
const daylight = (h: number): number => Math.max(0, Math.sin((Math.PI * (h - 6.5)) / 13));
/** Commuter traffic: peaks at 8:30 and 18:00 over a daytime plateau. */
const traffic = (h: number): number => clamp(0.05 + gauss(h, 8.5, 1.1) + 0.9 * gauss(h, 18, 1.5) + 0.45 * gauss(h, 13.5, 3.5), 0, 1.3);

/**
 * Events worth finding, once a week (so any week of history holds each once): a heat afternoon on
 * the fifth day, up to 9 °C above the usual; a full car park on the sixth evening.
 */
const localDay = (t: number, lon: number): number => Math.floor((t + (lon / 15) * HOUR_MS) / DAY_MS);
const heat = (t: number, lon: number): number => (localDay(t, lon) % 7 === 4 ? 9 * gauss(localHour(t, lon), 15.5, 2.2) : 0);
const carParkFull = (t: number, lon: number): boolean => {
  const h = localHour(t, lon);
  return localDay(t, lon) % 7 === 5 && h >= 17 && h < 22.5;
};

const attr = (name: string) => `urn:oc:attributeType:${name}`;

const signal = (name: string, value: Signal['value']): Signal => ({ name, type: attr(name), value });

export const SIGNALS = {
  temperature: signal('temperature:ambient', (seed, t, lon) =>
    round(14 + 4.5 * warmth(localHour(t, lon)) + heat(t, lon) + 1.5 * bias(seed, 1) + 0.3 * jitter(seed, 2, t), 2)),
  humidity: signal('relativeHumidity', (seed, t, lon) =>
    round(clamp(74 - 12 * warmth(localHour(t, lon)) + 5 * bias(seed, 3) + 2 * jitter(seed, 4, t), 20, 100), 1)),
  noise: signal('soundPressureLevel:ambient', (seed, t, lon) =>
    round(40 + 24 * activity(localHour(t, lon)) + 4 * bias(seed, 5) + 3 * jitter(seed, 6, t), 1)),
  illuminance: signal('illuminance', (seed, t, lon) => {
    const cloud = 0.35 + 0.65 * unit(hashInts(seed, 7, Math.floor(t / (3 * HOUR_MS))));
    return round(Math.max(3, 32_000 * daylight(localHour(t, lon)) ** 1.4 * cloud + 8 + 4 * jitter(seed, 8, t)), 2);
  }),
  battery: signal('batteryLevel', (seed, t) => {
    // Drains about 1 % a day from a per-asset level; replaced when it falls under 20 %.
    const days = t / DAY_MS + 80 * unit(hashInts(seed, 9));
    return round(100 - (days % 80), 0);
  }),
  parking: signal('presenceState:parking', (seed, t, lon) => {
    const h = localHour(t, lon);
    const busy = carParkFull(t, lon) ? 0.98 : 0.15 + 0.7 * clamp(gauss(h, 11.5, 2.5) + 0.8 * gauss(h, 19, 2), 0, 1);
    // Occupancy changes at most every half hour per spot.
    return unit(hashInts(seed, 10, Math.floor(t / (HOUR_MS / 2)))) < busy;
  }),
  trafficIntensity: signal('trafficIntensity', (seed, t, lon) =>
    Math.max(0, Math.round((900 + 500 * bias(seed, 11)) * traffic(localHour(t, lon)) * (1 + 0.12 * jitter(seed, 12, t))))),
  roadOccupancy: signal('roadOccupancy', (seed, t, lon) =>
    round(clamp(70 * traffic(localHour(t, lon)) * (1 + 0.25 * bias(seed, 13)) + 3 * jitter(seed, 14, t), 0, 100), 1)),
  averageSpeed: signal('speed:average', (seed, t, lon) =>
    round(clamp(52 + 6 * bias(seed, 15) - 28 * traffic(localHour(t, lon)) + 4 * jitter(seed, 16, t), 5, 90), 1)),
  soilMoisture: signal('soilMoistureTension', (seed, t, lon) => {
    // Dries through the day; irrigated at 6:00 local time.
    const sinceWatering = (localHour(t, lon) - 6 + 24) % 24;
    return round(8 + sinceWatering * (1.6 + 0.4 * bias(seed, 17)) + jitter(seed, 18, t), 1);
  }),
  soilTemperature: signal('temperature:soil', (seed, t, lon) =>
    round(13 + 2.2 * warmth(localHour(t, lon) - 2) + bias(seed, 19) + 0.2 * jitter(seed, 20, t), 2)),
  peopleWaiting: signal('presenceState:people', (seed, t, lon) =>
    Math.max(0, Math.round(12 * traffic(localHour(t, lon)) * (0.5 + unit(hashInts(seed, 21))) + 2 * jitter(seed, 22, t)))),
  bikesAvailable: signal('availableBikes', (seed, t, lon) =>
    Math.max(0, Math.round(10 + 3 * bias(seed, 23) - 8 * clamp(traffic(localHour(t, lon)), 0, 1) + 2 * jitter(seed, 24, t)))),
  wasteFill: signal('fillLevel:wasteContainer', (seed, t) => {
    // Fills over three days, emptied on a per-container schedule.
    const cycle = (t / (3 * DAY_MS) + unit(hashInts(seed, 25))) % 1;
    return round(clamp(cycle * 100 + 3 * jitter(seed, 26, t), 0, 100), 1);
  }),
  wasteTemperature: signal('temperature:wasteContainer', (seed, t, lon) =>
    round(9 + 5 * warmth(localHour(t, lon)) + bias(seed, 27) + 0.4 * jitter(seed, 28, t), 2)),
  no2: signal('chemicalAgentAtmosphericConcentration:NO2', (seed, t, lon) =>
    round(Math.max(2, 18 + 38 * traffic(localHour(t, lon)) + 8 * bias(seed, 29) + 4 * jitter(seed, 30, t)), 1)),
  o3: signal('chemicalAgentAtmosphericConcentration:O3', (seed, t, lon) =>
    round(Math.max(2, 35 + 40 * daylight(localHour(t, lon) - 2) + 6 * bias(seed, 31) + 4 * jitter(seed, 32, t)), 1)),
  particles: signal('chemicalAgentAtmosphericConcentration:airParticles', (seed, t, lon) =>
    round(Math.max(1, 14 + 12 * traffic(localHour(t, lon)) + 5 * bias(seed, 33) + 3 * jitter(seed, 34, t)), 1)),
  windSpeed: signal('windSpeed', (seed, t) =>
    round(Math.max(0, 12 + 9 * Math.sin(t / (17 * HOUR_MS) + 6 * unit(hashInts(seed, 35))) + 3 * jitter(seed, 36, t)), 1)),
  pressure: signal('atmosphericPressure', (seed, t) =>
    round(1013 + 9 * Math.sin(t / (53 * HOUR_MS)) + 2 * bias(seed, 37) + 0.3 * jitter(seed, 38, t), 1)),
} satisfies Record<string, Signal>;

export type SignalKey = keyof typeof SIGNALS;
