import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../domain/errors.js';
import type { Caller } from '../identity/caller.js';
import { looksLikeJwt, type TokenVerifier } from '../identity/verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller, or undefined when no token was sent (optional auth). */
    caller: Caller | undefined;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Bearer authentication for every interface. `request.caller` is filled when a
 * token is present; a present but invalid token is always refused (401), so a
 * route that accepts anonymous calls never sees a forged identity.
 * Routes that need a caller use `requireCaller`.
 */
export function registerBearerAuth(app: FastifyInstance, verifier: TokenVerifier): void {
  app.decorateRequest('caller', undefined);
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    // Other schemes (HTTP Basic on the token endpoint) are not ours to judge here.
    if (header === undefined || !/^bearer\b/i.test(header)) return;
    const match = BEARER.exec(header);
    if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
    const token = match[1] as string;
    if (!looksLikeJwt(token)) throw unauthorized('Invalid token (malformed)');
    request.caller = await verifier.verify(token);
  });
}

/** The caller of a route that demands authentication. */
export function requireCaller(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized('No bearer token was supplied');
  return request.caller;
}
