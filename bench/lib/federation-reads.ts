import { bulkLoad, type BulkAsset } from '../../src/storage/repositories/bulk-load.js';
import { bareBaseline } from './baseline.js';
import { createBenchDatabase, type StoreKind } from './databases.js';
import { load } from './load.js';
import { startServer } from './server.js';
import type { LoadResult } from '../types.js';

/**
 * The federation's NGSI v2 listing under load: a site of 100,000 assets of
 * four types (and a second site beside it, so that the site's own condition
 * has work to do), read by `GET /v2/entities?type=…&limit=100`, the first ten
 * pages in turn, then the same pages with each URL asked only once, so that
 * none is answered from the answers kept until the store moves. The baseline
 * is a bare node:http server answering a body of the same size.
 */

export const READ_SITE_ASSETS = 100_000;
const OTHER_SITE_ASSETS = 20_000;
const SITE = 'santander';
const OTHER_SITE = 'london';
const TYPES = ['urn:oc:entityType:iotdevice', 'urn:oc:entityType:parking', 'urn:oc:entityType:bus', 'urn:oc:entityType:bikestation'];
export const READ_TYPE = TYPES[0] as string;
export const READ_CONNECTIONS = 16;
const PAGES = 10;
const LIMIT = 100;

const readPath = (i: number): string => `/federation/v2/entities?type=${encodeURIComponent(READ_TYPE)}&limit=${LIMIT}&offset=${(i % PAGES) * LIMIT}`;
/** The same pages, each URL asked once (a parameter the listing ignores, as a browser's cache buster): no answer is kept. */
const unkeptPath = (i: number): string => `${readPath(i)}&_=${i}`;

/** An asset as a sensor of the generated city pushes it: TimeInstant, three readings and a position. */
function asset(seq: number, site: string, n: number, at: number): BulkAsset {
  const latitude = 43.46 + (n % 1000) / 100_000;
  const longitude = -3.81 + (n % 997) / 100_000;
  const attributes = {
    TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: new Date(at).toISOString(), metadata: {} },
    'temperature:ambient': { type: 'urn:oc:attributeType:temperature:ambient', value: (15 + (n % 100) / 10).toFixed(2), metadata: {} },
    relativeHumidity: { type: 'urn:oc:attributeType:relativeHumidity', value: 40 + (n % 50), metadata: {} },
    batteryLevel: { type: 'urn:oc:attributeType:batteryLevel', value: '88.00', metadata: {} },
    location: { type: 'geo:point', value: `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`, metadata: {} },
  };
  return {
    seq,
    id: `urn:oc:entity:${site}:environment:bench:reads:${n}`,
    type: TYPES[n % TYPES.length] as string,
    site, service: 'environment', provider: 'bench', group: 'reads', name: String(n), experimenter: null, experiment: null,
    attrs: JSON.stringify(attributes),
    latitude, longitude,
    recordedAt: at, lastReadingAt: at, createdAt: at,
    attributeTypes: Object.entries(attributes).map(([name, a]) => [name, a.type]),
  };
}

/** Bulk-loads both sites' assets, interleaved in creation order as sites push them. */
async function seedAssets(databaseUrl: string): Promise<void> {
  const at = Date.now() - 60_000;
  await bulkLoad(databaseUrl, async (writer) => {
    let seq = writer.firstSeq;
    let batch: BulkAsset[] = [];
    const ratio = READ_SITE_ASSETS / OTHER_SITE_ASSETS;
    let other = 0;
    for (let n = 0; n < READ_SITE_ASSETS; n++) {
      batch.push(asset(seq++, SITE, n, at));
      if (n % ratio === 0 && other < OTHER_SITE_ASSETS) batch.push(asset(seq++, OTHER_SITE, other++, at));
      if (batch.length >= 5000) {
        await writer.addAssets(batch);
        batch = [];
      }
    }
    await writer.addAssets(batch);
  });
}

export interface ReadFigures {
  result: LoadResult;
  /** The same pages, no answer kept. */
  unkept: LoadResult;
  baseline: LoadResult;
}

/** The listing load on `store`, and its bare node:http baseline with a body of the same size. */
export async function measureEntityListing(store: StoreKind): Promise<ReadFigures> {
  const database = await createBenchDatabase(store);
  try {
    await seedAssets(database.url);
    const server = await startServer({ store, databaseUrl: database.url });
    try {
      const headers = { authorization: `Bearer ${await server.siteToken(SITE, { latitude: 43.46232, longitude: -3.80998, quota: 1_000_000 })}` };
      const sample = await fetch(`${server.url}${readPath(0)}`, { headers });
      const body = await sample.text();
      if (sample.status !== 200 || (JSON.parse(body) as unknown[]).length !== LIMIT) throw new Error(`listing answered ${sample.status}: ${body.slice(0, 200)}`);
      const result = await load({ url: server.url, headers, requests: (i) => ({ method: 'GET', path: readPath(i) }), connections: READ_CONNECTIONS, expectStatus: 200 });
      const unkept = await load({ url: server.url, headers, requests: (i) => ({ method: 'GET', path: unkeptPath(i) }), connections: READ_CONNECTIONS, expectStatus: 200 });
      const baseline = await bareBaseline({ status: 200, body, method: 'GET', headers, requests: (i) => ({ method: 'GET', path: readPath(i) }), connections: READ_CONNECTIONS });
      return { result, unkept, baseline };
    } finally {
      await server.close();
    }
  } finally {
    await database.drop();
  }
}
