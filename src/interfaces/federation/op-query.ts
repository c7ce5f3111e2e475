import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { queryOperationSchema } from '../../contracts/federation-reads.js';
import { parseQueryOperation } from '../../domain/ngsi-entity-query.js';
import { listEntities } from '../../services/ngsi-reads.js';
import { checkPlatformService, readJsonBody, siteOfRequest } from './request.js';
import { queryTexts, sendJson } from './read-request.js';

/** POST /v2/op/query: GET /v2/entities with its selection in a JSON body, over the site's own assets. */
export async function queryOperationRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  // A query writes nothing: the writes' rate limit does not count it.
  app.post('/op/query', { schema: queryOperationSchema, config: { rateLimit: false } }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, ctx.config.platformServiceName, false);
    const query = parseQueryOperation(readJsonBody(request), queryTexts(request, ['limit', 'offset', 'orderBy', 'options']));
    const listing = await listEntities(ctx, site, query);
    return sendJson(reply, listing.json, listing.total);
  });
}
