import type { FastifyInstance, FastifyRequest } from 'fastify';
import { siteOfCaller } from '../../domain/site-client.js';
import { registerAnswerCache } from '../../http/answer-cache.js';
import type { AppContext } from '../../context.js';
import { storeVersion } from '../../storage/repositories/discovery-freshness.js';

/** The site a request's caller acts for, or undefined when the request will be refused (the route says why). */
function siteOfCallerOrNone(request: FastifyRequest): string | undefined {
  if (!request.caller) return undefined;
  try {
    return siteOfCaller(request.caller);
  } catch {
    return undefined;
  }
}

/**
 * The NGSI v2 reads of a site's own assets are kept as discovery's answers are
 * (src/http/answer-cache.ts): until anything is committed to the store, by any
 * process. A listing asked again and again (a dashboard, a script polling its
 * entities) is then answered without reading its rows again. An answer is given
 * only to a caller of the same site, with the same service headers (which the
 * route checks) and Accept (which chooses an attribute value's media type):
 * only 200s are kept, so a request the route refuses is always refused.
 */
export function registerKeptEntityReads(app: FastifyInstance, ctx: AppContext): void {
  registerAnswerCache(app, () => storeVersion(ctx.store), {
    maxBytes: 8 * 1024 * 1024,
    maxAnswerBytes: 512 * 1024,
    sharedBy: 'variant',
    variant: (request) => JSON.stringify([
      siteOfCallerOrNone(request), request.headers['platform-service'], request.headers['fiware-service'], request.headers.accept,
    ]),
    bypass: (request) => siteOfCallerOrNone(request) === undefined,
    totalHeader: 'fiware-total-count',
  });
}
