import assert from 'node:assert/strict';
import type { TestPlatform } from './platform.js';
import { bearer } from './platform.js';
import { namedReadings } from './stored-readings.js';

/** Requests of the federation interface, as a site client sends them. */

export const BASE = '/federation/v2/entities';
export const TI_TYPE = 'urn:oc:attributeType:ISO8601';
export const timeInstant = (value = '2017-07-25T13:35:00.000Z') => ({ type: TI_TYPE, value });

export const writeHeaders = (token: string, extra: Record<string, string> = {}): Record<string, string> => ({
  ...bearer(token), 'platform-service': 'opencity', 'content-type': 'application/json', ...extra,
});

export const entityUrl = (id: string, suffix = ''): string => `${BASE}/${encodeURIComponent(id)}${suffix}`;

export function assetBody(id: string, extra: Record<string, unknown> = {}, type = 'urn:oc:entityType:iotdevice'): Record<string, unknown> {
  return { id, type, TimeInstant: timeInstant(), temperature: { type: 'Number', value: 21.5 }, ...extra };
}

export async function create(p: TestPlatform, token: string, body: unknown, headers: Record<string, string> = {}) {
  return p.app.inject({ method: 'POST', url: BASE, headers: writeHeaders(token, headers), payload: JSON.stringify(body) });
}

export async function update(p: TestPlatform, token: string, id: string, body: unknown, headers: Record<string, string> = {}, query = '') {
  return p.app.inject({ method: 'POST', url: entityUrl(id, `/attrs${query}`), headers: writeHeaders(token, headers), payload: JSON.stringify(body) });
}

export async function remove(p: TestPlatform, token: string, id: string, query = '') {
  return p.app.inject({ method: 'DELETE', url: entityUrl(id, query), headers: bearer(token) });
}

export async function read(p: TestPlatform, token: string, id: string, query = '') {
  return p.app.inject({ method: 'GET', url: entityUrl(id, query), headers: bearer(token) });
}

/** The readings stored for an asset, oldest first. */
export async function readingsOf(p: TestPlatform, id: string) {
  const db = p.ctx.store.read;
  return namedReadings(db).innerJoin('assets', 'assets.seq', 'readings.asset_seq')
    .select(['names.term as attr_name', 'types.term as attr_type', 'readings.attr_value', 'readings.recv_time'])
    .where('assets.id', '=', id).orderBy('readings.seq').execute()
    .then((rows) => rows.map((r) => ({ ...r, recv_time: Number(r.recv_time) })));
}

export async function assetRow(p: TestPlatform, id: string) {
  const row = await p.ctx.store.read.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  return { ...row, seq: Number(row.seq), recorded_at: Number(row.recorded_at), last_reading_at: Number(row.last_reading_at), created_at: Number(row.created_at), deleted_at: row.deleted_at === null ? null : Number(row.deleted_at) };
}

export async function countsOf(p: TestPlatform, site: string) {
  const rows = await p.ctx.store.read.selectFrom('asset_counts').selectAll().where('site', '=', site).orderBy('service').orderBy('provider').orderBy('type').execute();
  return rows.map((r) => ({ ...r, assets: Number(r.assets) }));
}

export async function activityOf(p: TestPlatform, site: string) {
  const rows = await p.ctx.store.read.selectFrom('asset_activity').selectAll().where('site', '=', site).orderBy('hour').orderBy('type').execute();
  return rows.map((r) => ({ ...r, hour: Number(r.hour), assets: Number(r.assets) }));
}

/** Resolves with the rejection of `promise` (fails when it resolves): how a real client's error classes are checked. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** An answer is the mount's JSON error: its status, `error` and, when given, its description (exact, or matching). */
export function assertError(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, status: number, error: string, description?: string | RegExp): void {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.equal(res.headers['content-type'], 'application/json');
  const body = res.json() as { error: string; description: string };
  assert.equal(body.error, error);
  if (typeof description === 'string') assert.equal(body.description, description);
  else if (description) assert.match(body.description, description);
}
