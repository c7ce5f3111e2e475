import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { s256Challenge } from '../../src/domain/oauth.js';

export const REALM = '/auth/realms/opencity';
export const OIDC = `${REALM}/protocol/openid-connect`;
export const ISSUER = 'http://127.0.0.1:8080/auth/realms/opencity';

export const basic = (id: string, secret: string): string => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** POSTs a form to the token endpoint (optionally with HTTP Basic client authentication). */
export function tokenRequest(app: FastifyInstance, form: Record<string, string>, authorization?: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `${OIDC}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    payload: new URLSearchParams(form).toString(),
  });
}

/** Verifies a token against the provider's published JWKS, as any resource server would. */
export async function verifyWithJwks(app: FastifyInstance, token: string, options: { issuer?: string; audience?: string; currentDate?: Date } = {}): Promise<JWTPayload> {
  const jwks = (await app.inject({ method: 'GET', url: `${OIDC}/certs` })).json();
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: options.issuer ?? ISSUER, audience: options.audience, currentDate: options.currentDate });
  return payload;
}

export const decodePayload = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;

export const decodeHeader = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString('utf8')) as Record<string, unknown>;

/** A PKCE pair (RFC 7636). */
export function pkce(verifier = 'a-fixed-verifier-of-more-than-forty-three-characters-0123456789'): { verifier: string; challenge: string } {
  return { verifier, challenge: s256Challenge(verifier) };
}

/** The hidden `request` field and the cookie of a login page response. */
export function loginFormState(res: LightMyRequestResponse): { request: string; cookie: string } {
  const match = /name="request" value="([^"]+)"/.exec(res.body);
  const setCookie = res.headers['set-cookie'];
  const cookieLine = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  if (!match || !cookieLine) throw new Error('not a login page');
  return { request: (match[1] as string).replace(/&amp;/g, '&'), cookie: cookieLine.split(';')[0] as string };
}

export function formPost(app: FastifyInstance, url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: new URLSearchParams(form).toString() });
}
