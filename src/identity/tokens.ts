import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { accessTokenAudience, accessTokenClaims, idTokenClaims } from '../domain/token-claims.js';
import { listRoles, type RoleAssignment, type UserRecord } from '../storage/repositories/principals.js';
import type { Store } from '../storage/store.js';
import { signCompact } from './jws.js';
import type { AttemptSource, FailedAttempts } from './failed-attempts.js';
import type { KeyRing } from './key-ring.js';

/** Access tokens live five minutes, as Keycloak's do by default. */
export const ACCESS_TOKEN_TTL_S = 300;
/** ID tokens live as long as the access token they come with. */
export const ID_TOKEN_TTL_S = ACCESS_TOKEN_TTL_S;

export interface TokenIssuer {
  store: Store;
  keys: KeyRing;
  clock: Clock;
  issuer: string;
  /** AUTH_AUDIENCE: every access token names it, so that verifiers requiring it accept them. */
  audience?: string | undefined;
  /** Failed sign-ins and the addresses principals signed in from, for the back-off (absent: none, as for the command line). */
  attempts?: FailedAttempts | undefined;
}

export interface AccessTokenRequest {
  user: UserRecord;
  /** The client the token is issued to (`azp`). */
  clientId: string;
  /** Set for service-account tokens (Keycloak's `clientId` claim). */
  serviceAccountOf?: string;
  scope: string;
  sessionId?: string;
  /** The user's roles when the caller has just read them; otherwise they are read now. */
  roles?: RoleAssignment[];
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  claims: Record<string, unknown>;
}

/** Builds the Keycloak-compatible claims; roles are read now, at issue time. */
export async function buildClaims(ctx: TokenIssuer, req: AccessTokenRequest): Promise<Record<string, unknown>> {
  const assignments = req.roles ?? (await listRoles(ctx.store, req.user.id));
  return accessTokenClaims({
    user: req.user, assignments, clientId: req.clientId, serviceAccountOf: req.serviceAccountOf, scope: req.scope, sessionId: req.sessionId,
  });
}

/** Where a request comes from, for the back-off of failed sign-ins (undefined when nothing keeps count). */
export const attemptSource = (ctx: TokenIssuer, address: string): AttemptSource | undefined =>
  ctx.attempts === undefined ? undefined : { attempts: ctx.attempts, address };

/** Signs `claims` with the current key, adding the registered claims (iss, sub, aud, iat, exp, jti). */
export function signToken(ctx: TokenIssuer, claims: Record<string, unknown>, subject: string, audience: string | string[], ttlSeconds: number): string {
  const key = ctx.keys.current();
  const iat = Math.floor(ctx.clock.now() / 1000);
  const payload = { ...claims, iss: ctx.issuer, sub: subject, aud: audience, iat, exp: iat + ttlSeconds, jti: randomUUID() };
  return signCompact({ alg: key.alg, kid: key.kid, typ: 'JWT' }, payload, key.privateKey);
}

export async function issueAccessToken(ctx: TokenIssuer, req: AccessTokenRequest): Promise<IssuedToken> {
  const claims = await buildClaims(ctx, req);
  const accessToken = signToken(ctx, claims, req.user.id, accessTokenAudience(req.clientId, ctx.audience), ACCESS_TOKEN_TTL_S);
  return { accessToken, expiresIn: ACCESS_TOKEN_TTL_S, claims };
}

export interface IdTokenRequest {
  user: UserRecord;
  clientId: string;
  sessionId: string;
  /** When the person signed in, epoch ms. */
  authTime: number;
  nonce?: string | undefined;
}

/** An OpenID Connect ID token for the client (scope `openid`). */
export function issueIdToken(ctx: TokenIssuer, req: IdTokenRequest): string {
  const claims = idTokenClaims({ user: req.user, clientId: req.clientId, sessionId: req.sessionId, authTime: Math.floor(req.authTime / 1000), nonce: req.nonce });
  return signToken(ctx, claims, req.user.id, req.clientId, ID_TOKEN_TTL_S);
}
