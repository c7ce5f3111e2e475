import { createHash } from 'node:crypto';
import type { TokenResponse } from '../contracts/identity.js';
import { AppError } from '../domain/errors.js';
import { grantedScope, hasScope, pkceMatches } from '../domain/oauth.js';
import { userPrincipal } from '../domain/sign-in-addresses.js';
import { redeemAuthorizationCode } from '../storage/repositories/authorization-codes.js';
import { findPersonByLogin, findUserWithRoles } from '../storage/repositories/credentials.js';
import type { RoleAssignment, UserRecord } from '../storage/repositories/principals.js';
import type { AuthenticatedClient } from './client-auth.js';
import type { AttemptSource } from './failed-attempts.js';
import { passwordMatches } from './secrets.js';
import { endSession, newSessionId, rotate, startSession, tokenDigest, type IssuedRefreshToken } from './sessions.js';
import { issueAccessToken, issueIdToken, type TokenIssuer } from './tokens.js';

/** The grants of the token endpoint (RFC 6749 §4), each from an authenticated client to a token response. */

export type TokenForm = Record<string, string | undefined>;

/** An authorization code is good for one minute (Keycloak's default). */
export const AUTHORIZATION_CODE_TTL_S = 60;

const invalidGrant = (description: string): AppError => new AppError('INVALID_GRANT', description);
const invalidRequest = (description: string): AppError => new AppError('INVALID_REQUEST', description);
const unauthorizedClient = (grant: string): AppError => new AppError('UNAUTHORIZED_CLIENT', `A public client may not use the ${grant} grant`);

function required(form: TokenForm, name: string): string {
  const value = form[name];
  if (value === undefined || value === '') throw invalidRequest(`Missing form parameter: ${name}`);
  return value;
}

/** Keycloak's field set: openid-client needs access_token, token_type and a numeric expires_in. */
function response(access: { accessToken: string; expiresIn: number }, scope: string, extra: { refresh?: IssuedRefreshToken; idToken?: string; sessionId?: string }): TokenResponse {
  const body: TokenResponse = {
    access_token: access.accessToken,
    expires_in: access.expiresIn,
    refresh_expires_in: extra.refresh?.refreshExpiresIn ?? 0,
    token_type: 'Bearer',
    'not-before-policy': 0,
    scope,
  };
  if (extra.idToken) body.id_token = extra.idToken;
  if (extra.refresh) body.refresh_token = extra.refresh.refreshToken;
  if (extra.sessionId) body.session_state = extra.sessionId;
  return body;
}

/** The token of a client's own service account: its roles, `clientId` claim, no refresh token (as Keycloak). */
export async function clientCredentialsGrant(ctx: TokenIssuer, client: AuthenticatedClient, form: TokenForm): Promise<TokenResponse> {
  if (client.isPublic) throw unauthorizedClient('client_credentials');
  const scope = grantedScope(form.scope);
  const access = await issueAccessToken(ctx, {
    user: client.account, clientId: client.id, serviceAccountOf: client.id, scope, roles: client.roles,
  });
  return response(access, scope, {});
}

interface SignedIn {
  user: UserRecord;
  roles: RoleAssignment[];
  client: AuthenticatedClient;
  scope: string;
  sessionId: string;
  authTime: number;
  nonce?: string | undefined;
}

/** Tokens of a person's session: access token, refresh token, and an ID token when `openid` was asked for. */
async function sessionTokens(ctx: TokenIssuer, s: SignedIn, refresh: IssuedRefreshToken): Promise<TokenResponse> {
  const access = await issueAccessToken(ctx, { user: s.user, clientId: s.client.id, scope: s.scope, sessionId: s.sessionId, roles: s.roles });
  const idToken = hasScope(s.scope, 'openid')
    ? issueIdToken(ctx, { user: s.user, clientId: s.client.id, sessionId: s.sessionId, authTime: s.authTime, nonce: s.nonce })
    : undefined;
  return response(access, s.scope, { refresh, idToken, sessionId: s.sessionId });
}

/**
 * A person's name and password. Only confidential clients may ask (a public
 * client has the login page). An unknown user costs the same scrypt work as a
 * wrong password, and both get the same answer.
 */
export async function passwordGrant(ctx: TokenIssuer, client: AuthenticatedClient, form: TokenForm, source?: AttemptSource): Promise<TokenResponse> {
  if (client.isPublic) throw unauthorizedClient('password');
  const username = required(form, 'username');
  const password = required(form, 'password');
  const person = await authenticatePerson(ctx, username, password, source);
  if (!person) throw invalidGrant('Invalid user credentials');
  const scope = grantedScope(form.scope);
  const sessionId = newSessionId();
  const authTime = ctx.clock.now();
  const refresh = await startSession(ctx, { userId: person.user.id, clientId: client.id, scope, sessionId, authTime });
  return sessionTokens(ctx, { ...person, client, scope, sessionId, authTime }, refresh);
}

/**
 * The person whose login (user name, or e-mail address) and password match; undefined otherwise.
 * With a `source`, repeated failures make the user wait (./failed-attempts.ts): keyed on the user,
 * so that the user name and the e-mail address share one back-off; an unknown login has its own.
 */
export async function authenticatePerson(
  ctx: TokenIssuer, login: string, password: string, source?: AttemptSource,
): Promise<{ user: UserRecord; roles: RoleAssignment[] } | undefined> {
  const person = await findPersonByLogin(ctx.store, login);
  const principal = person ? userPrincipal(person.user.id) : `login:${login.toLowerCase()}`;
  await source?.attempts.check(principal, source.address);
  const ok = await passwordMatches(password, person?.user.passwordHash ?? null);
  if (ok && person) {
    await source?.attempts.succeeded(principal, source.address);
    return person;
  }
  source?.attempts.failed(principal, source.address);
  return undefined;
}

/** A new access token (roles read again) and a new refresh token for the old one, which stops working. */
export async function refreshTokenGrant(ctx: TokenIssuer, client: AuthenticatedClient, form: TokenForm): Promise<TokenResponse> {
  const presented = required(form, 'refresh_token');
  const { session, next } = await rotate(ctx, presented, client.id);
  const person = await findUserWithRoles(ctx.store, session.userId);
  if (!person) {
    await endSession(ctx, session.sessionId);
    throw invalidGrant('The user of this session no longer exists');
  }
  return sessionTokens(ctx, {
    ...person, client, scope: session.scope, sessionId: session.sessionId, authTime: session.authTime ?? session.createdAt,
  }, next);
}

/** The session an authorization code starts: derived from the code, so a replayed code can end it. */
export const sessionIdForCode = (codeDigest: string): string => createHash('sha256').update(`session:${codeDigest}`).digest('base64url').slice(0, 32);

/**
 * Redeems an authorization code (once) with its PKCE verifier. The code must
 * have been issued to this client for exactly this redirect URI and be younger
 * than a minute. A second redemption ends the session the first one started
 * (RFC 6749 §4.1.2).
 */
export async function authorizationCodeGrant(ctx: TokenIssuer, client: AuthenticatedClient, form: TokenForm): Promise<TokenResponse> {
  const code = required(form, 'code');
  const now = ctx.clock.now();
  const digest = tokenDigest(code);
  const redemption = await redeemAuthorizationCode(ctx.store, digest, now);
  if (redemption.outcome === 'unknown') throw invalidGrant('Code not valid');
  if (redemption.outcome === 'reused') {
    await endSession(ctx, sessionIdForCode(digest));
    throw invalidGrant('Code already used; the session it started has ended');
  }
  const issued = redemption.code;
  if (issued.clientId !== client.id) throw invalidGrant('Code was issued to another client');
  if (issued.expiresAt <= now) throw invalidGrant('Code expired');
  if (form.redirect_uri !== issued.redirectUri) throw invalidGrant('Incorrect redirect_uri');
  if (!form.code_verifier) throw invalidGrant('PKCE code verifier not specified');
  if (!pkceMatches(form.code_verifier, issued.codeChallenge)) throw invalidGrant('PKCE verification failed');
  const person = await findUserWithRoles(ctx.store, issued.userId);
  if (!person) throw invalidGrant('The user of this code no longer exists');
  const sessionId = sessionIdForCode(digest);
  const authTime = issued.expiresAt - AUTHORIZATION_CODE_TTL_S * 1000;
  const refresh = await startSession(ctx, { userId: person.user.id, clientId: client.id, scope: issued.scope, sessionId, authTime });
  return sessionTokens(ctx, { ...person, client, scope: issued.scope, sessionId, authTime, nonce: issued.nonce ?? undefined }, refresh);
}

export const GRANTS: Record<string, (ctx: TokenIssuer, client: AuthenticatedClient, form: TokenForm, source?: AttemptSource) => Promise<TokenResponse>> = {
  client_credentials: clientCredentialsGrant,
  password: passwordGrant,
  refresh_token: refreshTokenGrant,
  authorization_code: authorizationCodeGrant,
};
