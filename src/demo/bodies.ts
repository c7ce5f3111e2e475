import { formatInstant, TIME_INSTANT, TIME_INSTANT_TYPE } from '../domain/time-instant.js';
import type { Signal } from './signals.js';

/**
 * NGSI v2 request bodies as a real site client sends them to federation:
 * a create with the asset's position and first values, then updates with new
 * values, each with its TimeInstant.
 */

export type NgsiBody = Record<string, unknown>;

/** Where an asset is, in the form its site sends: Santander's older `position` coords, or a `location` GeoJSON point. */
export type PositionStyle = 'coords' | 'geojson';

export const timeInstant = (epochMs: number) => ({ type: TIME_INSTANT_TYPE, value: formatInstant(epochMs), metadata: {} });

export function positionAttribute(style: PositionStyle, latitude: number, longitude: number): [string, Record<string, unknown>] {
  return style === 'coords'
    ? ['position', { type: 'coords', value: `${latitude.toFixed(5)},${longitude.toFixed(5)}`, metadata: {} }]
    : ['location', { type: 'geo:json', value: { type: 'Point', coordinates: [longitude, latitude] }, metadata: {} }];
}

export interface Measurement {
  signal: Signal;
  value: unknown;
}

function measured(body: NgsiBody, values: readonly Measurement[]): NgsiBody {
  for (const { signal, value } of values) body[signal.name] = { type: signal.type, value, metadata: {} };
  return body;
}

/** POST /v2/entities: id, type, TimeInstant, position (when known; else the site's centre applies), values. */
export function creationBody(id: string, type: string, observedAt: number, position: [string, Record<string, unknown>] | undefined, values: readonly Measurement[]): NgsiBody {
  const body: NgsiBody = { id, type, [TIME_INSTANT]: timeInstant(observedAt) };
  if (position) body[position[0]] = position[1];
  return measured(body, values);
}

/** POST /v2/entities/{id}/attrs: TimeInstant and the new values. */
export function updateBody(observedAt: number, values: readonly Measurement[]): NgsiBody {
  return measured({ [TIME_INSTANT]: timeInstant(observedAt) }, values);
}

/** The values of `signals` at `time` for the asset seeded `seed`. */
export const measure = (signals: readonly Signal[], seed: number, time: number, lon: number): Measurement[] =>
  signals.map((signal) => ({ signal, value: signal.value(seed, time, lon) }));
