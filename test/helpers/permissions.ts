import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { AccountsPermission } from '../../src/domain/role-access.js';
import { basic, decodePayload, tokenRequest } from './identity.js';
import { bearer, type TestPlatform } from './platform.js';

/** A token of client `tool` holding these accounts-permissions permissions (and any other roles). */
export function toolToken(p: TestPlatform, tool: string, permissions: AccountsPermission[], roles: string[] = []): Promise<string> {
  return p.clientToken(tool, [...permissions.map((x) => `accounts-permissions:${x}`), ...roles]);
}

/** A client_credentials grant from the token endpoint, as a client gets it: the token and its claims. */
export async function clientCredentials(p: TestPlatform, clientId: string, secret: string): Promise<{ token: string; claims: Record<string, any> }> {
  const res = await tokenRequest(p.app, { grant_type: 'client_credentials' }, basic(clientId, secret));
  assert.equal(res.statusCode, 200, res.body);
  const token = res.json().access_token as string;
  return { token, claims: decodePayload(token) };
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
