import type { RequestSpec } from './load.js';
import type { BenchServer } from './server.js';
import { currentTimeInstant, perSecond, type TimeInstantAttribute } from './time-instant.js';

/**
 * The federation write load the federation and changes scenarios share:
 * attribute updates with three attributes over a seeded set of assets, and
 * creates of ids never used before, from many connections.
 */

export const CONNECTIONS = 64;
/** Assets the update load cycles through. */
export const SEEDED = 1000;
export const SITE = 'santander';
export const PREFIX = `urn:oc:entity:${SITE}:environment:bench:fixed:`;
const TYPE = 'urn:oc:entityType:iotdevice';
const updateBody = (i: number, timeInstant: TimeInstantAttribute): string => JSON.stringify({
  TimeInstant: timeInstant,
  'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: (15 + (i % 100) / 10).toFixed(2), metadata: {} },
  relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + (i % 50), metadata: {} },
  batteryLevel: { type: 'urn:oc:attributeType:batteryLevel', value: '88.00', metadata: {} },
});

const createBody = (id: string, i: number, timeInstant: TimeInstantAttribute): string => JSON.stringify({
  id,
  type: TYPE,
  TimeInstant: timeInstant,
  'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: '14.20', metadata: {} },
  relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + (i % 50), metadata: {} },
  location: { type: 'geo:point', value: `${(43.46 + (i % 1000) / 100_000).toFixed(5)}, ${(-3.81 + (i % 997) / 100_000).toFixed(5)}`, metadata: {} },
});

const updatePath = (id: string): string => `/federation/v2/entities/${id}/attrs`;

export function writeHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'platform-service': 'opencity' };
}

// Requests are prepared ahead where they can be: the load generator shares the machine's two cores.
const UPDATE_PATHS = Array.from({ length: SEEDED }, (_, i) => updatePath(`${PREFIX}${i}`));
const UPDATE_BODIES = 100;
const updateBodies = perSecond((timeInstant) => Array.from({ length: UPDATE_BODIES }, (_, i) => updateBody(i, timeInstant)));
export const updateRequests = (i: number): RequestSpec => ({ method: 'POST', path: UPDATE_PATHS[i % SEEDED], body: updateBodies()[i % UPDATE_BODIES] });

/** Ids never used before: the counter keeps running between warm-up and measurement. */
export const createRequests = (run: string) => {
  const parts = perSecond((timeInstant) => createBody('\u0000', 0, timeInstant).split('"\\u0000"') as [string, string]);
  return (i: number): RequestSpec => {
    const [head, tail] = parts();
    return { method: 'POST', path: '/federation/v2/entities', body: `${head}"urn:oc:entity:${SITE}:environment:bench:${run}:${i}"${tail}` };
  };
};

/** The site's write headers, once its client exists (with room for every create) and the update load's assets are created. */
export async function seededSite(server: BenchServer): Promise<Record<string, string>> {
  const headers = writeHeaders(await server.siteToken(SITE, { latitude: 43.46232, longitude: -3.80998, quota: 1_000_000_000 }));
  await seed(server, headers);
  return headers;
}

/** Creates the assets the update load cycles through, a few requests at a time. */
async function seed(server: BenchServer, headers: Record<string, string>): Promise<void> {
  const parallel = 16;
  for (let start = 0; start < SEEDED; start += parallel) {
    await Promise.all(Array.from({ length: Math.min(parallel, SEEDED - start) }, async (_, k) => {
      const i = start + k;
      const res = await fetch(`${server.url}/federation/v2/entities`, { method: 'POST', headers, body: createBody(`${PREFIX}${i}`, i, currentTimeInstant()) });
      if (res.status !== 201) throw new Error(`seeding ${PREFIX}${i}: ${res.status} ${await res.text()}`);
    }));
  }
}
