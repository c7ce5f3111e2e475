import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { getAttributeSchema, getAttributeValueSchema, getEntityAttributesSchema, getEntitySchema, listEntitiesSchema } from '../../contracts/federation-reads.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { valueMediaType } from '../../domain/ngsi-attribute-value.js';
import { parseAttributeList } from '../../domain/ngsi-entity-format.js';
import { ENTITY_OPTIONS, parseListParameters, parseOptions } from '../../domain/ngsi-entity-query.js';
import { attributesOf, entityJson, findEntity, listEntities } from '../../services/ngsi-reads.js';
import { checkPlatformService, siteOfRequest } from './request.js';
import { queryTexts, sendJson } from './read-request.js';

const LIST_PARAMETERS = [
  'id', 'idPattern', 'type', 'typePattern', 'q', 'mq', 'georel', 'geometry', 'coords', 'attrs', 'metadata', 'limit', 'offset', 'orderBy', 'options',
] as const;

/** What an attribute's reads take: no selection and no format (Orion's skipForwarding has nothing to skip). */
const ATTRIBUTE_OPTIONS = ['skipForwarding'] as const;

/**
 * The entity of a by-id read: checks in the order of the rest of the mount,
 * then the site's own asset. `wholeEntity` reads take `attrs` and the formats.
 */
async function entityOfRequest(ctx: AppContext, request: Parameters<typeof siteOfRequest>[0], id: string, wholeEntity = true) {
  const site = await siteOfRequest(request, ctx);
  checkPlatformService(request, ctx.config.platformServiceName, false);
  const p = queryTexts(request, ['type', 'attrs', 'metadata', 'options']);
  if (p.metadata !== undefined) throw badRequest('Invalid metadata: metadata filters and selections are not supported');
  if (p.type === '') throw badRequest('Invalid type: empty');
  if (!wholeEntity && p.attrs !== undefined) throw badRequest('Invalid attrs: an attribute read names its attribute in the path');
  const attrs = p.attrs === undefined ? undefined : parseAttributeList('attrs', p.attrs);
  const options = parseOptions(p.options, wholeEntity ? ENTITY_OPTIONS : ATTRIBUTE_OPTIONS);
  const row = await findEntity(ctx, site, id, p.type);
  return { row, attrs, options };
}

/**
 * NGSI v2 reads of the site's own entities: the list (GET /v2/entities), one
 * entity, its attributes, one attribute and one attribute's value.
 */
export async function entityReadRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/entities', { schema: listEntitiesSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, ctx.config.platformServiceName, false);
    const query = parseListParameters(queryTexts(request, LIST_PARAMETERS));
    const listing = await listEntities(ctx, site, query);
    return sendJson(reply, listing.json, listing.total);
  });

  app.get('/entities/:assetId', { schema: getEntitySchema }, async (request, reply) => {
    const { row, attrs, options } = await entityOfRequest(ctx, request, request.params.assetId);
    return sendJson(reply, entityJson(row, options.format, options.unique, { attrs }));
  });

  app.get('/entities/:assetId/attrs', { schema: getEntityAttributesSchema }, async (request, reply) => {
    const { row, attrs, options } = await entityOfRequest(ctx, request, request.params.assetId);
    if (options.format === 'values' || (options.format === 'normalized' && attrs === undefined)) {
      // The values format has no id or type to leave out; the stored normalized attributes are the answer as they are.
      return sendJson(reply, options.format === 'values' ? entityJson(row, options.format, options.unique, { attrs }) : row.attrs);
    }
    const { id: _id, type: _type, ...attributes } = JSON.parse(entityJson(row, options.format, false, { attrs })) as Record<string, unknown>;
    return sendJson(reply, JSON.stringify(attributes));
  });

  app.get('/entities/:assetId/attrs/:attrName', { schema: getAttributeSchema }, async (request, reply) => {
    const { row } = await entityOfRequest(ctx, request, request.params.assetId, false);
    const attributes = attributesOf(row);
    const name = request.params.attrName;
    if (!Object.hasOwn(attributes, name)) throw new AppError('NOT_FOUND', 'The entity does not have such an attribute');
    return sendJson(reply, JSON.stringify(attributes[name]));
  });

  app.get('/entities/:assetId/attrs/:attrName/value', { schema: getAttributeValueSchema }, async (request, reply) => {
    const { row } = await entityOfRequest(ctx, request, request.params.assetId, false);
    const attributes = attributesOf(row);
    const name = request.params.attrName;
    if (!Object.hasOwn(attributes, name)) throw new AppError('NOT_FOUND', 'The entity does not have such an attribute');
    const value = attributes[name]?.value ?? null;
    const mediaType = valueMediaType(value, request.headers.accept);
    return reply.code(200).header('content-type', mediaType).send(Buffer.from(JSON.stringify(value)));
  });
}
