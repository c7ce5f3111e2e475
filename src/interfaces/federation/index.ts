import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { createSchema, deleteSchema, FederationError, getSchema, updateSchema } from '../../contracts/federation.js';
import type { NgsiAttributes } from '../../domain/asset-body.js';
import { renderEntity } from '../../domain/ngsi-entity-format.js';
import { registerWriteRateLimit } from '../../http/write-rate-limit.js';
import { createAsset, deleteAsset, getAsset, updateAsset } from '../../services/federation.js';
import { checkOptions, checkPlatformService, readJsonBody, siteOfRequest, typeQuery } from './request.js';
import { subscriptionRoutes } from './subscriptions.js';

const JSON_TYPE = 'application/json';

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

  app.post('/entities', { schema: createSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, true);
    checkOptions(request, []);
    const created = await createAsset(ctx, site, readJsonBody(request));
    return reply.code(201).header('location', created.location).send();
  });

  app.post('/entities/:assetId/attrs', { schema: updateSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, true);
    checkOptions(request, []);
    const body = readJsonBody(request);
    await updateAsset(ctx, site, request.params.assetId, body, { type: typeQuery(request) });
    return reply.code(204).send();
  });

  app.delete('/entities/:assetId', { schema: deleteSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, false);
    await deleteAsset(ctx, site, request.params.assetId, { type: typeQuery(request) });
    return reply.code(204).send();
  });

  app.get('/entities/:assetId', { schema: getSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, false);
    const keyValues = checkOptions(request, ['keyValues']).has('keyValues');
    const asset = await getAsset(ctx, site, request.params.assetId, { type: typeQuery(request) });
    const attributes = JSON.parse(asset.attrs) as NgsiAttributes;
    const entity = renderEntity({ id: asset.id, type: asset.type, attributes }, keyValues ? 'keyValues' : 'normalized');
    // A Buffer keeps the media type exactly application/json, as NGSI clients expect.
    return reply.code(200).header('content-type', JSON_TYPE).send(Buffer.from(JSON.stringify(entity)));
  });

  subscriptionRoutes(app, ctx);
}
