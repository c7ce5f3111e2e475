import type { LightMyRequestResponse } from 'fastify';
import type { AccountsPermission } from '../../src/domain/role-access.js';
import { bearer, type TestPlatform } from './platform.js';

/** A token of client `tool` holding these accounts-permissions permissions (and any other roles). */
export function toolToken(p: TestPlatform, tool: string, permissions: AccountsPermission[], roles: string[] = []): Promise<string> {
  return p.clientToken(tool, [...permissions.map((x) => `accounts-permissions:${x}`), ...roles]);
}

/** The bootstrap client: every accounts-permissions permission. */
export const adminToken = (p: TestPlatform): Promise<string> => p.clientToken('opencity-admin');

export interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request to the permissions interface (JSON body when given). */
export function call(p: TestPlatform, c: Call): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...(c.token ? bearer(c.token) : {}), ...(c.headers ?? {}) };
  if (c.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  return p.app.inject({
    method: c.method, url: `/permissions${c.url}`, headers,
    ...(c.body === undefined ? {} : { payload: typeof c.body === 'string' ? c.body : JSON.stringify(c.body) }),
  });
}

/** The error body every failure of this interface carries. */
export function errorOf(res: LightMyRequestResponse): string {
  if (!/^application\/json/.test(String(res.headers['content-type']))) throw new Error(`not JSON: ${res.headers['content-type']} ${res.body}`);
  const body = res.json() as Record<string, unknown>;
  const keys = Object.keys(body);
  if (keys.length !== 1 || typeof body.error !== 'string' || body.error === '') throw new Error(`not an {error} body: ${res.body}`);
  return body.error;
}
