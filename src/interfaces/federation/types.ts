import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { getTypeSchema, listTypesSchema } from '../../contracts/federation-reads.js';
import { badRequest } from '../../domain/errors.js';
import { parsePaging } from '../../domain/ngsi-entity-query.js';
import { getType, listTypes } from '../../services/ngsi-reads.js';
import { checkPlatformService, siteOfRequest } from './request.js';
import { queryTexts, sendJson } from './read-request.js';

/** `options` of the type reads: each a flag; anything else is a 400. */
function typeOptions(text: string | undefined, allowed: readonly string[]): Set<string> {
  const options = (text ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  const unknown = options.find((o) => !allowed.includes(o));
  if (unknown !== undefined) throw badRequest(`Invalid options: ${JSON.stringify(unknown)} is not supported here (${allowed.join(', ')})`);
  return new Set(options);
}

/** NGSI v2 entity types of the site's own assets: GET /v2/types and /v2/types/{type}. */
export async function typeRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/types', { schema: listTypesSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, ctx.config.platformServiceName, false);
    const p = queryTexts(request, ['limit', 'offset', 'options']);
    const paging = parsePaging(p.limit, p.offset);
    const options = typeOptions(p.options, ['count', 'values', 'noAttrDetail']);
    const { types, total } = await listTypes(ctx, site, paging, !options.has('noAttrDetail'));
    const body = options.has('values') ? types.map((t) => t.type) : types;
    return sendJson(reply, JSON.stringify(body), options.has('count') ? total : undefined);
  });

  app.get('/types/:entityType', { schema: getTypeSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, ctx.config.platformServiceName, false);
    const options = typeOptions(queryTexts(request, ['options']).options, ['noAttrDetail']);
    const { attrs, count } = await getType(ctx, site, request.params.entityType, !options.has('noAttrDetail'));
    return sendJson(reply, JSON.stringify({ attrs, count }));
  });
}
