import { randomBytes } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AuthorizeQuery, LoginForm } from '../contracts/identity.js';
import { grantedScope, isS256Challenge, redirectUriAllowed, withQuery } from '../domain/oauth.js';
import { insertAuthorizationCode } from '../storage/repositories/authorization-codes.js';
import { findClient, getRedirectUris } from '../storage/repositories/principals.js';
import { AUTHORIZATION_CODE_TTL_S, authenticatePerson } from './grants.js';
import { loginPage, messagePage, pageHeaders } from './login-page.js';
import { newBrowserBinding, openLoginRequest, signLoginRequest, type AuthorizationRequest } from './login-request.js';
import { OIDC_PATH } from './paths.js';
import type { RateLimitRoute } from './rate-limit.js';
import { tokenDigest } from './sessions.js';
import { attemptSource, type TokenIssuer } from './tokens.js';

/**
 * The authorization endpoint (RFC 6749 §4.1 with PKCE, RFC 7636): shows the
 * login form, checks the password, and sends the browser back to the client
 * with a one-time code. The provider keeps no browser session: every sign-in
 * asks for the password.
 */

const COOKIE = 'oc_login';
const COOKIE_PATH = `${OIDC_PATH}/auth`;

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function sendPage(reply: FastifyReply, status: number, html: string, redirectTarget?: string): FastifyReply {
  return reply.code(status).headers(pageHeaders(redirectTarget)).send(html);
}

/**
 * Errors of these pages are pages too: a person is reading them, not a program.
 * The HTTP error handler maps the error to its status and calls this (route config `errorPage`).
 */
export function signInErrorPage(status: number, message: string): { headers: Record<string, string>; html: string } {
  const text = status >= 500
    ? 'Something went wrong on our side. Please try again in a moment.'
    : status === 429 ? `Too many sign-in attempts. ${message}.` : `The sign-in request is not valid: ${message}`;
  return { headers: pageHeaders(), html: messagePage('Cannot sign in', text) };
}

/** Sends the browser back to the client: RFC 6749 §4.1.2 plus the issuer (RFC 9207). */
function backToClient(reply: FastifyReply, issuer: string, req: { redirectUri: string; state: string | undefined }, params: Record<string, string>, status: 302 | 303): FastifyReply {
  return reply.header('cache-control', 'no-store').redirect(withQuery(req.redirectUri, { ...params, state: req.state, iss: issuer }), status);
}

export function authorizeRoutes(scope: FastifyInstance, issuer: TokenIssuer, rateLimit: RateLimitRoute): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const secureCookie = issuer.issuer.startsWith('https:');

  app.get('/protocol/openid-connect/auth', {
    config: { errorPage: signInErrorPage },
    schema: {
      tags: ['identity'],
      summary: 'Authorization endpoint: the login page (authorization code with PKCE S256)',
      produces: ['text/html'],
      querystring: AuthorizeQuery,
    },
  }, async (request, reply) => {
    const q = request.query;
    if (!q.client_id) return sendPage(reply, 400, messagePage('Cannot sign in', 'The application did not say which application it is (client_id is missing).'));
    const client = await findClient(issuer.store, q.client_id);
    const registered = client ? await getRedirectUris(issuer.store, client.id) : [];
    // Never redirect to an address the client did not register: tell the person instead.
    if (!client) return sendPage(reply, 400, messagePage('Cannot sign in', 'This application is not known to OpenCity.'));
    if (!q.redirect_uri || !redirectUriAllowed(q.redirect_uri, registered)) {
      return sendPage(reply, 400, messagePage('Cannot sign in', 'The address this application asked to return to is not registered for it (redirect_uri).'));
    }
    const back = { redirectUri: q.redirect_uri, state: q.state };
    if (q.response_type !== 'code') {
      return backToClient(reply, issuer.issuer, back, { error: 'unsupported_response_type', error_description: 'Only response_type=code is supported' }, 302);
    }
    if (q.code_challenge_method !== 'S256' || !q.code_challenge || !isS256Challenge(q.code_challenge)) {
      return backToClient(reply, issuer.issuer, back, { error: 'invalid_request', error_description: 'PKCE is required: code_challenge with code_challenge_method=S256' }, 302);
    }
    if ((q.prompt ?? '').split(' ').includes('none')) {
      return backToClient(reply, issuer.issuer, back, { error: 'login_required', error_description: 'The person must sign in' }, 302);
    }
    const cookie = readCookie(request.headers.cookie, COOKIE) ?? newBrowserBinding();
    const authRequest: AuthorizationRequest = {
      clientId: client.id, redirectUri: q.redirect_uri, scope: grantedScope(q.scope), state: q.state, nonce: q.nonce, codeChallenge: q.code_challenge,
    };
    reply.header('set-cookie', `${COOKIE}=${cookie}; Path=${COOKIE_PATH}; Max-Age=1800; HttpOnly; SameSite=Lax${secureCookie ? '; Secure' : ''}`);
    return sendPage(reply, 200, loginPage({ clientName: client.name ?? client.id, request: signLoginRequest(issuer, authRequest, cookie) }), q.redirect_uri);
  });

  app.post('/protocol/openid-connect/auth', {
    config: { ...rateLimit, errorPage: signInErrorPage },
    schema: {
      tags: ['identity'],
      summary: 'The login form posts here; on success the browser goes back to the client with a code',
      consumes: ['application/x-www-form-urlencoded'],
      produces: ['text/html'],
      body: LoginForm,
    },
  }, async (request, reply) => {
    const form: LoginForm = request.body ?? {};
    const check = await openLoginRequest(issuer, form.request, readCookie(request.headers.cookie, COOKIE));
    if (!check.ok) {
      const message = check.reason === 'expired'
        ? 'This sign-in form has expired. Go back to the application and sign in again.'
        : check.reason === 'cookie'
          ? 'This sign-in form was not opened in this browser, or the browser refused its cookie. Allow cookies for this site, go back to the application and sign in again.'
          : 'This sign-in form is not valid. Go back to the application and sign in again.';
      return sendPage(reply, 400, messagePage('Cannot sign in', message));
    }
    const req = check.request;
    if (form.cancel !== undefined) return backToClient(reply, issuer.issuer, req, { error: 'access_denied', error_description: 'The person cancelled the sign-in' }, 303);
    const person = await authenticatePerson(issuer, form.username ?? '', form.password ?? '', attemptSource(issuer, request.ip));
    if (!person) {
      const client = await findClient(issuer.store, req.clientId);
      // The same words whether the user exists or not.
      return sendPage(reply, 401, loginPage({
        clientName: client?.name ?? req.clientId, request: form.request as string, username: form.username, error: 'Invalid user name or password.',
      }), req.redirectUri);
    }
    const code = randomBytes(32).toString('base64url');
    await insertAuthorizationCode(issuer.store, {
      digest: tokenDigest(code), clientId: req.clientId, userId: person.user.id, redirectUri: req.redirectUri, codeChallenge: req.codeChallenge,
      scope: req.scope, nonce: req.nonce ?? null, expiresAt: issuer.clock.now() + AUTHORIZATION_CODE_TTL_S * 1000, usedAt: null,
    });
    return backToClient(reply, issuer.issuer, req, { code }, 303);
  });
}
