import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { AppContext } from '../context.js';
import { authorizeRoutes } from './authorize.js';
import { discoveryRoutes } from './discovery.js';
import { logoutRoutes } from './logout.js';
import { REALM_PATH } from './paths.js';
import { registerIdentityRateLimits } from './rate-limit.js';
import { tokenEndpoint } from './token-endpoint.js';
import { userinfoRoutes } from './userinfo.js';
import { embeddedVerifier } from './verifier.js';

export { REALM_PATH } from './paths.js';

/**
 * The embedded OpenID Connect provider, mounted at /auth/realms/opencity with
 * Keycloak's paths, so that standard clients and a real Keycloak realm are
 * interchangeable with it.
 */
export async function identityRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  // These endpoints read the Authorization header themselves (HTTP Basic clients; userinfo's own check).
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), bearerAuth: false };
  });
  const limits = await registerIdentityRateLimits(app, ctx.config.tokenRateLimit);
  // userinfo describes this provider's own tokens, whichever issuer the interfaces trust.
  const ownTokens = embeddedVerifier(ctx.keys, ctx.tokens.issuer, ctx.clock);

  discoveryRoutes(app, ctx.tokens.issuer, ctx.keys);
  tokenEndpoint(app, ctx.tokens, limits.token);
  authorizeRoutes(app, ctx.tokens, limits.login);
  userinfoRoutes(app, ctx.tokens, ownTokens);
  logoutRoutes(app, ctx.tokens);
}

/** The issuer URL of the embedded provider. */
export const issuerUrl = (publicUrl: string): string => `${publicUrl}${REALM_PATH}`;
