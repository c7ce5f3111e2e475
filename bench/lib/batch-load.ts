import type { RequestSpec } from './load.js';
import { PREFIX, SEEDED } from './federation-load.js';
import { perSecond, type TimeInstantAttribute } from './time-instant.js';

/**
 * The NGSI batch load of the federation scenario: `/v2/op/update` append of
 * 100 of the seeded assets × 5 attributes (TimeInstant and four readings) per
 * request, as an IoT Agent or a site's gateway sends them.
 */

export const BATCH_CONNECTIONS = 16;
export const BATCH_ENTITIES = 100;
export const BATCH_ATTRIBUTES = 5;
export const BATCH_PATH = '/federation/v2/op/update';

function batchBody(slice: number, variant: number, timeInstant: TimeInstantAttribute): string {
  const entities = Array.from({ length: BATCH_ENTITIES }, (_, k) => {
    const n = (slice * BATCH_ENTITIES + k) % SEEDED;
    return {
      id: `${PREFIX}${n}`,
      type: 'urn:oc:entityType:iotdevice',
      TimeInstant: timeInstant,
      'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: (15 + ((n + variant) % 100) / 10).toFixed(2) },
      relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + ((n + variant) % 50) },
      batteryLevel: { type: 'urn:oc:attributeType:batteryLevel', value: '88.00' },
      noise: { type: 'urn:oc:attributeType:noise', value: 50 + (variant % 20) },
    };
  });
  return JSON.stringify({ actionType: 'append', entities });
}

// Prepared ahead: the load generator shares the machine's two cores.
const SLICES = Math.ceil(SEEDED / BATCH_ENTITIES);
const BODIES = SLICES * 4;
const bodies = perSecond((timeInstant) => Array.from({ length: BODIES }, (_, i) => batchBody(i % SLICES, Math.floor(i / SLICES), timeInstant)));

export const batchRequests = (i: number): RequestSpec => ({ method: 'POST', path: BATCH_PATH, body: bodies()[i % BODIES] });

/** Attribute updates a batch load of `rps` requests per second makes. */
export const attributeUpdates = (rps: number): number => rps * BATCH_ENTITIES * BATCH_ATTRIBUTES;
