import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { compactVerify } from 'jose';
import { LogoutParams, OAuthError, RevocationRequest } from '../contracts/identity.js';
import { AppError } from '../domain/errors.js';
import { redirectUriAllowed, withQuery } from '../domain/oauth.js';
import { getRedirectUris } from '../storage/repositories/principals.js';
import { authenticateTokenClient, presentedClient } from './client-auth.js';
import { messagePage, pageHeaders } from './login-page.js';
import { endSession, sessionOf } from './sessions.js';
import { attemptSource, type TokenIssuer } from './tokens.js';
import { ACCEPTED_ALGORITHMS, keyResolver } from './verifier.js';

/**
 * Ending sessions: OpenID Connect RP-initiated logout (a browser, with an ID
 * token hint), Keycloak's logout with a refresh token (a program), and token
 * revocation (RFC 7009). Access tokens are not revocable: they expire within
 * five minutes, and resource servers verify them without calling back here.
 */

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The session and client of an ID token this provider signed; an expired one still names its session. */
async function idTokenSession(issuer: TokenIssuer, idToken: string): Promise<{ sessionId: string; clientId: string } | undefined> {
  try {
    const { payload } = await compactVerify(idToken, keyResolver(issuer.keys), { algorithms: ACCEPTED_ALGORITHMS });
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    const sessionId = str(claims.sid);
    const clientId = str(claims.azp) ?? str(claims.aud);
    if (claims.iss !== issuer.issuer || claims.typ !== 'ID' || !sessionId || !clientId) return undefined;
    return { sessionId, clientId };
  } catch {
    return undefined;
  }
}

function params(request: FastifyRequest): LogoutParams {
  const merged: Record<string, unknown> = { ...(request.query as object), ...((request.body as object | undefined) ?? {}) };
  if (Object.values(merged).some((v) => typeof v !== 'string')) throw new AppError('INVALID_REQUEST', 'Each parameter must appear once');
  return merged as LogoutParams;
}

const signedOut = (reply: FastifyReply) => reply.code(200).headers(pageHeaders()).send(messagePage('Signed out', 'You have signed out of OpenCity. You may close this page.'));

export function logoutRoutes(app: FastifyInstance, issuer: TokenIssuer): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const p = params(request);

    // A program ending its session with its refresh token (Keycloak): 204, no page.
    if (p.refresh_token) {
      const client = await authenticateTokenClient(issuer.store, presentedClient(request.headers.authorization, p), attemptSource(issuer, request.ip));
      const session = await sessionOf(issuer, p.refresh_token, client.id);
      if (!session) throw new AppError('INVALID_GRANT', 'Invalid refresh token');
      await endSession(issuer, session.sessionId);
      return reply.code(204).header('cache-control', 'no-store').send();
    }

    // A browser sent by the application (RP-initiated logout).
    let clientId = str(p.client_id);
    if (p.id_token_hint) {
      const session = await idTokenSession(issuer, p.id_token_hint);
      if (!session || (clientId !== undefined && clientId !== session.clientId)) {
        return reply.code(400).headers(pageHeaders()).send(messagePage('Cannot sign out', 'The application sent a sign-out request that is not valid.'));
      }
      clientId = session.clientId;
      await endSession(issuer, session.sessionId);
    }
    const target = str(p.post_logout_redirect_uri);
    if (target) {
      const registered = clientId ? await getRedirectUris(issuer.store, clientId) : [];
      if (!redirectUriAllowed(target, registered)) {
        return reply.code(400).headers(pageHeaders()).send(messagePage('Signed out', 'You have signed out, but the address the application asked to return to is not registered for it.'));
      }
      return reply.header('cache-control', 'no-store').redirect(withQuery(target, { state: str(p.state) }), 302);
    }
    return signedOut(reply);
  };
  const schema = {
    tags: ['identity'],
    summary: 'Sign out: ends the session of an ID token hint or of a refresh token',
    response: { '4xx': OAuthError },
  };
  app.get('/protocol/openid-connect/logout', { config: { errorStyle: 'oauth' }, schema: { ...schema, querystring: LogoutParams } }, handler);
  app.post('/protocol/openid-connect/logout', { config: { errorStyle: 'oauth' }, schema: { ...schema, body: LogoutParams } }, handler);

  app.post('/protocol/openid-connect/revoke', {
    config: { errorStyle: 'oauth' },
    schema: { tags: ['identity'], summary: 'Token revocation (RFC 7009): a refresh token ends its session', body: RevocationRequest, response: { '4xx': OAuthError } },
    attachValidation: true,
  }, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, unknown>;
    const client = await authenticateTokenClient(issuer.store, presentedClient(request.headers.authorization, form), attemptSource(issuer, request.ip));
    const token = str(form.token);
    if (!token || request.validationError) throw new AppError('INVALID_REQUEST', 'Missing form parameter: token');
    // Unknown tokens, access tokens and other clients' tokens get the same 200 (RFC 7009 §2.2).
    const session = await sessionOf(issuer, token, client.id);
    if (session) await endSession(issuer, session.sessionId);
    return reply.code(200).header('cache-control', 'no-store').send();
  });
}
