import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify } from 'jose';
import { signCompact } from './jws.js';
import type { TokenIssuer } from './tokens.js';
import { keyResolver } from './verifier.js';

/**
 * The authorization request travels inside the login form, signed, instead of
 * in server-side state: any server process can finish a sign-in another one
 * started. It is bound to a random cookie of the browser that opened the form
 * (the form carries only the cookie's digest), so a page elsewhere cannot post
 * the form for someone else's browser (login CSRF).
 */

export const LOGIN_REQUEST_TTL_S = 10 * 60;
const TYP = 'oc-login+jwt';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string;
}

export const newBrowserBinding = (): string => randomBytes(32).toString('base64url');
const bindingDigest = (cookie: string): string => createHash('sha256').update(cookie).digest('base64url');
const audience = (ctx: TokenIssuer): string => `${ctx.issuer}/login`;

export function signLoginRequest(ctx: TokenIssuer, req: AuthorizationRequest, browserCookie: string): string {
  const key = ctx.keys.current();
  const iat = Math.floor(ctx.clock.now() / 1000);
  const payload: Record<string, unknown> = {
    iss: ctx.issuer, aud: audience(ctx), iat, exp: iat + LOGIN_REQUEST_TTL_S,
    client_id: req.clientId, redirect_uri: req.redirectUri, scope: req.scope, code_challenge: req.codeChallenge, bnd: bindingDigest(browserCookie),
  };
  if (req.state !== undefined) payload.state = req.state;
  if (req.nonce !== undefined) payload.nonce = req.nonce;
  return signCompact({ alg: key.alg, kid: key.kid, typ: TYP }, payload, key.privateKey);
}

export type LoginRequestCheck =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; reason: 'expired' | 'invalid' | 'cookie' };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The request the form carries, when it is genuine, current, and was opened in this browser. */
export async function openLoginRequest(ctx: TokenIssuer, token: string | undefined, browserCookie: string | undefined): Promise<LoginRequestCheck> {
  if (!token) return { ok: false, reason: 'invalid' };
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keyResolver(ctx.keys), {
      issuer: ctx.issuer, audience: audience(ctx), typ: TYP, currentDate: new Date(ctx.clock.now()), requiredClaims: ['exp'],
    }));
  } catch (error) {
    return { ok: false, reason: (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : 'invalid' };
  }
  if (!browserCookie || payload.bnd !== bindingDigest(browserCookie)) return { ok: false, reason: 'cookie' };
  const clientId = str(payload.client_id);
  const redirectUri = str(payload.redirect_uri);
  const codeChallenge = str(payload.code_challenge);
  if (!clientId || !redirectUri || !codeChallenge) return { ok: false, reason: 'invalid' };
  return { ok: true, request: { clientId, redirectUri, codeChallenge, scope: str(payload.scope) ?? '', state: str(payload.state), nonce: str(payload.nonce) } };
}
