import { registerClient } from '../../src/identity/clients.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';
import { sql } from 'kysely';
import { namedReadings } from './stored-readings.js';

/** Creates the store's schema, a site and its client; returns the client's secret. */
export async function prepareSite(databaseUrl: string, site: string, quota: number | null = null): Promise<string> {
  const store = Store.open(databaseUrl);
  try {
    await store.migrate();
    const now = Date.now();
    await upsertSite(store, { id: site, name: site, type: 'city', latitude: 43.46, longitude: -3.81, countryCode: null, country: null, city: site, quota }, now);
    return (await registerClient(store, { now: () => now }, { clientId: `ocsite-${site}`, roles: [{ role: 'ocsite', experiment: null }] })).secret;
  } finally {
    await store.close();
  }
}

export async function fetchToken(baseUrl: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${baseUrl}/auth/realms/opencity/protocol/openid-connect/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(secret)}`,
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export const TI = (ms: number) => ({ type: 'urn:oc:attributeType:ISO8601', value: new Date(ms).toISOString() });

/** One federation write over HTTP: the status, or 0 when the connection failed (outcome unknown). */
export async function federationWrite(baseUrl: string, token: string, kind: 'create' | 'update', id: string, value: number, signal?: AbortSignal): Promise<number> {
  const body = kind === 'create'
    ? { id, type: 'urn:oc:entityType:crashtest', TimeInstant: TI(Date.UTC(2024, 0, 1) + value), temperature: { type: 'Number', value }, serial: { type: 'Text', value: `s${value}` } }
    : { TimeInstant: TI(Date.UTC(2024, 0, 1) + value), temperature: { type: 'Number', value }, serial: { type: 'Text', value: `s${value}` } };
  const url = kind === 'create' ? `${baseUrl}/federation/v2/entities` : `${baseUrl}/federation/v2/entities/${encodeURIComponent(id)}/attrs`;
  try {
    const res = await fetch(url, {
      method: 'POST', body: JSON.stringify(body), signal,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'platform-service': 'opencity' },
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Readings per asset and attribute, and each asset's current attributes, read straight from the store. */
export async function storedState(databaseUrl: string, site: string) {
  const store = Store.open(databaseUrl);
  try {
    const assets = await store.read.selectFrom('assets').select(['seq', 'id', 'attrs', 'deleted_at']).where('site', '=', site).execute();
    const readings = await namedReadings(store.read).innerJoin('assets', 'assets.seq', 'readings.asset_seq')
      .select(['assets.id', 'names.term as attr_name', 'readings.attr_value']).where('assets.site', '=', site).orderBy('readings.seq').execute();
    const changes = await store.read.selectFrom('changes').select(['asset_id', 'kind', 'attrs']).where('site', '=', site).orderBy('seq').execute();
    const counts = await sql<{ n: number | string }>`select coalesce(sum(assets), 0) as n from asset_counts where site = ${site}`.execute(store.read);
    const byAsset = new Map<string, Map<string, string[]>>();
    for (const r of readings) {
      const attrs = byAsset.get(r.id) ?? new Map<string, string[]>();
      byAsset.set(r.id, attrs);
      attrs.set(r.attr_name, [...(attrs.get(r.attr_name) ?? []), r.attr_value]);
    }
    return {
      assets: new Map(assets.map((a) => [a.id, { attrs: JSON.parse(a.attrs) as Record<string, { value: unknown }>, deleted: a.deleted_at !== null }])),
      readings: byAsset,
      counted: Number(counts.rows[0]?.n ?? 0),
      /** The change log of the site's assets, in order: each change's kind and the temperature it set. */
      changes: changes.map((c) => ({ id: c.asset_id, kind: c.kind, temperature: (JSON.parse(c.attrs) as Record<string, { value: unknown }>).temperature?.value })),
    };
  } finally {
    await store.close();
  }
}
