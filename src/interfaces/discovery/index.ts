import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { onlineSince } from '../../domain/activity.js';
import { registerAnswerCache } from '../../http/answer-cache.js';
import { storeVersion } from '../../storage/repositories/discovery-freshness.js';
import { serializeWithJsonStringify } from '../../http/plain-json.js';
import { assetRoutes } from './assets.js';
import type { DiscoveryDeps } from './deps.js';
import { geoRoutes } from './geo.js';
import { SiteCatalog } from './site-catalog.js';
import { summaryRoutes } from './summaries.js';
import { typeRoutes } from './types.js';
import { Links } from './views.js';

/**
 * The discovery interface (spec part C) at /discovery/v0: read-only
 * exploration of assets, sites, services, providers and types. GET only; a
 * bearer token is optional and only widens what is visible (experiment assets).
 */
export async function discoveryInterface(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const deps: DiscoveryDeps = {
    ctx,
    sites: new SiteCatalog(ctx.store, ctx.clock),
    links: new Links(`${ctx.config.publicUrl}${app.prefix}`),
  };
  serializeWithJsonStringify(app);
  registerAnswerCache(app, () => storeVersion(ctx.store), {
    maxBytes: 8 * 1024 * 1024,
    maxAnswerBytes: 512 * 1024,
    // Online counts move with time alone: answers are kept within one hour of the online window.
    variant: () => String(onlineSince(ctx.clock.now(), ctx.config.onlineWindowMs)),
    // Random samples differ each time. (The query is not validated yet when the cache looks.)
    bypass: (request) => (request.query as Record<string, unknown> | undefined)?.sample !== undefined,
  });
  assetRoutes(app, deps);
  geoRoutes(app, deps);
  summaryRoutes(app, deps);
  typeRoutes(app, deps);
}
