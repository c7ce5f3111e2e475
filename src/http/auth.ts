import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../domain/errors.js';
import type { Caller } from '../domain/caller.js';
import type { TokenVerifier } from '../identity/verifier.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified caller, or undefined when no token was sent (optional auth). */
    caller: Caller | undefined;
  }
  interface FastifyContextConfig {
    /**
     * `false` on routes that read the Authorization header themselves (the
     * identity provider's own endpoints: HTTP Basic client authentication, its
     * userinfo, which trusts only the embedded issuer).
     */
    bearerAuth?: boolean;
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
    if (request.routeOptions.config?.bearerAuth === false) return;
    // Other schemes (HTTP Basic on the token endpoint) are not ours to judge here.
    if (header === undefined || !/^bearer\b/i.test(header)) return;
    const match = BEARER.exec(header);
    if (!match) throw unauthorized('Malformed Authorization header: expected "Bearer <token>"');
    request.caller = await verifier.verify(match[1] as string);
  });
}

/** The caller of a route that demands authentication. */
export function requireCaller(request: FastifyRequest): Caller {
  if (!request.caller) throw unauthorized('No bearer token was supplied');
  return request.caller;
}
