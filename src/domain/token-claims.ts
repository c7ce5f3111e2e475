import { roleClaims } from './roles.js';

/**
 * The claims of the tokens the identity provider issues, laid out as Keycloak
 * lays them out (DESIGN.md, "Identity"), so that a real Keycloak realm and this
 * provider are interchangeable for every service reading them.
 */

export interface TokenUser {
  id: string;
  username: string;
  email: string | null;
}

export interface AssignedRole {
  role: string;
  /** Set when the role is scoped to one experiment. */
  experiment: string | null;
}

export interface AccessClaimsInput {
  user: TokenUser;
  /** The user's role assignments, read when the token is issued. */
  assignments: readonly AssignedRole[];
  /** The client the token is issued to (`azp`). */
  clientId: string;
  /** Set for a client's service-account token: Keycloak's `clientId` claim. */
  serviceAccountOf?: string | undefined;
  scope: string;
  sessionId?: string | undefined;
}

/** Claims of an access token, except the registered ones (iss, sub, aud, iat, exp, jti) the signer adds. */
export function accessTokenClaims(input: AccessClaimsInput): Record<string, unknown> {
  const global = input.assignments.filter((a) => a.experiment === null).map((a) => a.role);
  const { realmRoles, resourceAccess } = roleClaims(global);
  const experimentRoles = input.assignments
    .filter((a): a is { role: string; experiment: string } => a.experiment !== null)
    .map((a) => ({ role: a.role, experiment: a.experiment }));
  // A role held within an experiment is still that role globally (e.g. `participant`); the
  // experiment it applies to travels in `experiment_roles`.
  for (const r of experimentRoles) if (!realmRoles.includes(r.role)) realmRoles.push(r.role);
  const claims: Record<string, unknown> = {
    typ: 'Bearer',
    azp: input.clientId,
    scope: input.scope,
    preferred_username: input.user.username,
    realm_access: { roles: realmRoles },
    resource_access: resourceAccess,
  };
  if (input.serviceAccountOf !== undefined) claims.clientId = input.serviceAccountOf;
  if (input.user.email) claims.email = input.user.email;
  if (experimentRoles.length > 0) claims.experiment_roles = experimentRoles;
  if (input.sessionId !== undefined) claims.sid = input.sessionId;
  return claims;
}

/**
 * The `aud` of an access token: `account` as Keycloak puts it, the client itself so that a
 * resource server can check it, and the configured audience (AUTH_AUDIENCE) when there is one.
 */
export function accessTokenAudience(clientId: string, configured?: string): string | string[] {
  const audience = [...new Set(['account', clientId, ...(configured === undefined ? [] : [configured])])];
  return audience.length === 1 ? 'account' : audience;
}

export interface IdClaimsInput {
  user: TokenUser;
  clientId: string;
  sessionId: string;
  /** When the person entered their password, epoch seconds. */
  authTime: number;
  nonce?: string | undefined;
}

/** Claims of an OpenID Connect ID token (audience: the client), except the registered ones. */
export function idTokenClaims(input: IdClaimsInput): Record<string, unknown> {
  const claims: Record<string, unknown> = {
    typ: 'ID',
    azp: input.clientId,
    auth_time: input.authTime,
    sid: input.sessionId,
    preferred_username: input.user.username,
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  if (input.user.email) claims.email = input.user.email;
  return claims;
}

/** What the userinfo endpoint answers for a token's subject. */
export function userInfo(user: TokenUser): Record<string, string> {
  const info: Record<string, string> = { sub: user.id, preferred_username: user.username };
  if (user.email) info.email = user.email;
  return info;
}
