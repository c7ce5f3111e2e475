import assert from 'node:assert/strict';
import { haversineBound, haversineTerm, type Point } from '../../src/domain/geo.js';
import type { SeededAsset } from './discovery-dataset.js';
import { byText } from './discovery-dataset.js';
import { bearer, type TestPlatform } from './platform.js';

/** Brute-force expectations and request helpers for the discovery tests. */

export type SortKey = 'id' | 'type' | 'site' | 'service' | 'provider' | 'last_reading_at' | 'recorded_at';

const keyOf = (a: SeededAsset, sort: SortKey): string | number | null => {
  switch (sort) {
    case 'last_reading_at': return a.lastReadingAt;
    case 'recorded_at': return a.recordedAt;
    default: return a[sort];
  }
};

/**
 * The order discovery must list `assets` in: by the key (NULLs first
 * ascending, last descending), then by creation order (seq) in the same direction.
 */
export function expectedOrder(assets: readonly SeededAsset[], sort: SortKey, order: 'asc' | 'desc'): string[] {
  const seq = new Map(assets.map((a, i) => [a.id, i]));
  const sign = order === 'asc' ? 1 : -1;
  return [...assets].sort((a, b) => {
    const x = keyOf(a, sort);
    const y = keyOf(b, sort);
    let c = 0;
    if (x === null || y === null) c = x === y ? 0 : x === null ? -1 : 1;
    else c = typeof x === 'number' && typeof y === 'number' ? x - y : byText(String(x), String(y));
    return sign * c || sign * ((seq.get(a.id) ?? 0) - (seq.get(b.id) ?? 0));
  }).map((a) => a.id);
}

export const publicAssets = (assets: readonly SeededAsset[]) => assets.filter((a) => a.site !== 'experimenters');

export interface Got {
  status: number;
  headers: Record<string, unknown>;
  body: any;
}

export async function getJson(p: TestPlatform, url: string, token?: string): Promise<Got> {
  const res = await p.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });
  let body: unknown;
  try {
    body = res.json();
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/** A 200 JSON answer. */
export async function ok(p: TestPlatform, url: string, token?: string): Promise<Got> {
  const got = await getJson(p, url, token);
  assert.equal(got.status, 200, `${url}: ${JSON.stringify(got.body)}`);
  return got;
}

/** An error answer: status, JSON {error, description}, the description mentioning `mentions`. */
export async function fails(p: TestPlatform, url: string, status: number, mentions: string, token?: string): Promise<void> {
  const got = await getJson(p, url, token);
  assert.equal(got.status, status, `${url}: ${JSON.stringify(got.body)}`);
  assert.equal(got.headers['content-type'], 'application/json');
  assert.deepEqual(Object.keys(got.body).sort(), ['description', 'error']);
  assert.equal(got.body.error, status === 400 ? 'BadRequest' : 'NotFound');
  assert.ok(String(got.body.description).includes(mentions), `${got.body.description} should mention ${mentions}`);
}

/** Every id of every page of `url` (which must not carry page/per), `per` at a time. */
export async function allPages(p: TestPlatform, url: string, per: number, token?: string): Promise<{ ids: string[]; totals: number[] }> {
  const ids: string[] = [];
  const totals: number[] = [];
  const sep = url.includes('?') ? '&' : '?';
  for (let page = 1; page <= 200; page++) {
    const got = await ok(p, `${url}${sep}page=${page}&per=${per}`, token);
    totals.push(Number(got.headers['x-total-count']));
    const items = got.body as Array<{ id: string }>;
    ids.push(...items.map((a) => a.id));
    if (items.length < per) return { ids, totals };
  }
  throw new Error('too many pages');
}

/** The ids in GeoJSON collections, checking their shape. */
export function featureIds(collections: any[]): string[] {
  const ids: string[] = [];
  const seenTypes = new Set<string>();
  for (const c of collections) {
    assert.equal(c.type, 'FeatureCollection');
    assert.ok(!seenTypes.has(c.properties.name), 'one collection per type');
    seenTypes.add(c.properties.name);
    assert.ok(c.features.length > 0);
    for (const f of c.features) {
      assert.equal(f.type, 'Feature');
      assert.equal(f.geometry.type, 'Point');
      assert.equal(f.properties.type, c.properties.name);
      ids.push(f.properties.id);
    }
  }
  return ids;
}

/** Brute force: is the asset within `radius` radians of `centre`? */
export const within = (a: SeededAsset, centre: Point, radius: number) => haversineTerm(centre, a) <= haversineBound(radius);

/** The ids of a geo search (up to 1,000, one page) and its X-Total-Count, checking the GeoJSON answer. */
export async function geoSearch(p: TestPlatform, query: string, token?: string): Promise<{ ids: string[]; total: number }> {
  const res = await p.app.inject({ method: 'GET', url: `/discovery/v0/assets/geo/search?${query}&per=1000`, headers: token ? bearer(token) : {} });
  assert.equal(res.statusCode, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/geojson/);
  return { ids: featureIds(res.json()), total: Number(res.headers['x-total-count']) };
}

export const sorted = (ids: Iterable<string>): string[] => [...ids].sort(byText);
export const enc = encodeURIComponent;
