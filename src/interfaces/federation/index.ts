import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { deleteSchema, FederationError } from '../../contracts/federation.js';
import { registerWriteRateLimit } from '../../http/write-rate-limit.js';
import { deleteAsset } from '../../services/federation.js';
import { batchUpdateRoutes } from './batch.js';
import { entityReadRoutes } from './entity-reads.js';
import { registerKeptEntityReads } from './kept-reads.js';
import { registerEntityWrites } from './entity-writes.js';
import { notifyRoutes } from './notify.js';
import { queryOperationRoutes } from './op-query.js';
import { checkPlatformService, siteOfRequest, typeQuery } from './request.js';
import { typeRoutes } from './types.js';
import { subscriptionRoutes } from './subscriptions.js';

/**
 * The federation interface (spec part A), NGSI v2 as Orion speaks it, at
 * /federation/v2. Routes only: checks in ./request.ts and src/domain, writes in
 * src/services/federation.ts.
 */
export async function federationInterface(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  await registerWriteRateLimit(app, ctx.config.writeRateLimit);
  app.addSchema(FederationError);
  // The schemas document the interface; the checks run in the handlers, in the
  // order the spec gives and with their own descriptions.
  app.setValidatorCompiler(() => () => true);
  // Bodies arrive as bytes whatever their Content-Type: the handler judges the
  // type (415) and the text only after the caller and the headers, as the original did.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  const service = ctx.config.platformServiceName;
  registerEntityWrites(app, ctx);
  batchUpdateRoutes(app, ctx);
  notifyRoutes(app, ctx);

  app.delete('/entities/:assetId', { schema: deleteSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, false);
    await deleteAsset(ctx, site, request.params.assetId, { type: typeQuery(request) });
    return reply.code(204).send();
  });

  // The reads of a site's own assets, with their answers kept until the store moves (./kept-reads.ts).
  await app.register(async (reads) => {
    registerKeptEntityReads(reads, ctx);
    await entityReadRoutes(reads, ctx);
  });
  await typeRoutes(app, ctx);
  await queryOperationRoutes(app, ctx);
  subscriptionRoutes(app, ctx);
}
