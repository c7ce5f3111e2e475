import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Clock } from '../domain/clock.js';
import { roleClaims } from '../domain/roles.js';
import { listRoles, type UserRecord } from '../storage/repositories/principals.js';
import type { Store } from '../storage/store.js';
import type { KeyRing } from './key-ring.js';

export const ACCESS_TOKEN_TTL_S = 300;

export interface TokenIssuer {
  store: Store;
  keys: KeyRing;
  clock: Clock;
  issuer: string;
}

export interface AccessTokenRequest {
  user: UserRecord;
  /** The client the token is issued to (`azp`). */
  clientId: string;
  /** Set for service-account tokens (Keycloak's `clientId` claim). */
  serviceAccountOf?: string;
  scope: string;
  sessionId?: string;
  nonce?: string;
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  claims: Record<string, unknown>;
}

/** Builds the Keycloak-compatible claims; roles are read now, at issue time. */
export async function buildClaims(ctx: TokenIssuer, req: AccessTokenRequest): Promise<Record<string, unknown>> {
  const assignments = await listRoles(ctx.store, req.user.id);
  const { realmRoles, resourceAccess } = roleClaims(assignments.filter((a) => a.experiment === null).map((a) => a.role));
  const experimentRoles = assignments.filter((a) => a.experiment !== null).map((a) => ({ role: a.role, experiment: a.experiment }));
  for (const r of experimentRoles) if (!realmRoles.includes(r.role)) realmRoles.push(r.role);
  const claims: Record<string, unknown> = {
    typ: 'Bearer',
    azp: req.clientId,
    scope: req.scope,
    preferred_username: req.user.username,
    realm_access: { roles: realmRoles },
    resource_access: resourceAccess,
  };
  if (req.serviceAccountOf) claims.clientId = req.serviceAccountOf;
  if (req.user.email) claims.email = req.user.email;
  if (experimentRoles.length > 0) claims.experiment_roles = experimentRoles;
  if (req.sessionId) claims.sid = req.sessionId;
  return claims;
}

export async function signToken(ctx: TokenIssuer, claims: Record<string, unknown>, subject: string, audience: string | string[], ttlSeconds: number): Promise<string> {
  const key = ctx.keys.current();
  const iat = Math.floor(ctx.clock.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(ctx.issuer)
    .setSubject(subject)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .setJti(randomUUID())
    .sign(key.privateKey);
}

export async function issueAccessToken(ctx: TokenIssuer, req: AccessTokenRequest): Promise<IssuedToken> {
  const claims = await buildClaims(ctx, req);
  const accessToken = await signToken(ctx, claims, req.user.id, ['account', req.clientId], ACCESS_TOKEN_TTL_S);
  return { accessToken, expiresIn: ACCESS_TOKEN_TTL_S, claims };
}
