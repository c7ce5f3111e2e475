import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  appendAttributesSchema, createEntitySchema, deleteAttributeSchema, patchAttributesSchema, replaceAttributeSchema,
  replaceAttributesSchema, replaceAttributeValueSchema,
} from '../../contracts/federation-writes.js';
import type { NgsiAttribute } from '../../domain/asset-body.js';
import { attributeReplacement, valueReplacement } from '../../domain/attribute-replacement.js';
import type { AttributeWriteMode } from '../../domain/attribute-writes.js';
import type { BatchEntity } from '../../domain/batch-update.js';
import { AppError, badRequest } from '../../domain/errors.js';
import { normalizeKeyValues } from '../../domain/ngsi-key-values.js';
import { createAsset, updateAsset } from '../../services/federation.js';
import { attributesOf, findEntity } from '../../services/ngsi-reads.js';
import { upsertEntity, writeEntity } from '../../services/entity-writes.js';
import type { SiteRecord } from '../../storage/repositories/sites.js';
import { checkOptions, checkPlatformService, readJsonBody, siteOfRequest, typeQuery } from './request.js';
import { readValueBody } from './value-body.js';

/**
 * The NGSI v2 writes of one entity: create (and upsert), and the writes of
 * its attributes — POST (append, or strict), PATCH, PUT of all, of one and of
 * one's value, DELETE of one. Checks in src/domain, writes in
 * src/services/entity-writes.ts.
 */

/** A body of attributes as the entity it writes: read whole, so that an id or type in it is refused, as on POST …/attrs. */
function entityOf(id: string, type: string | undefined, body: unknown): BatchEntity {
  return { id, type, body: body as Record<string, unknown>, attributes: body as Record<string, unknown> };
}

/** A write of attributes to an existing entity, as `mode` says (404 when it is not there). */
async function writeAttributes(ctx: AppContext, site: SiteRecord, request: FastifyRequest, id: string, mode: AttributeWriteMode, keyValues: boolean): Promise<void> {
  const entity = entityOf(id, typeQuery(request), readJsonBody(request));
  await writeEntity(ctx, site, { kind: 'attributes', mode, createMissing: false }, entity, { keyValues });
}

/** The stored attribute a write of one attribute needs: 404 when the asset, or the attribute, is not there. */
async function storedAttribute(ctx: AppContext, site: SiteRecord, request: FastifyRequest, id: string, name: string): Promise<NgsiAttribute> {
  const attrs = attributesOf(await findEntity(ctx, site, id, typeQuery(request)));
  if (!Object.hasOwn(attrs, name)) throw new AppError('ATTRIBUTE_NOT_FOUND');
  return attrs[name] as NgsiAttribute;
}

export function registerEntityWrites(scope: FastifyInstance, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const service = ctx.config.platformServiceName;
  const writeChecks = async (request: FastifyRequest, allowed: readonly string[]) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, true);
    return { site, options: checkOptions(request, allowed) };
  };

  app.post('/entities', { schema: createEntitySchema }, async (request, reply) => {
    const { site, options } = await writeChecks(request, ['upsert', 'keyValues']);
    const keyValues = options.has('keyValues');
    const body = readJsonBody(request);
    if (!options.has('upsert')) {
      const created = await createAsset(ctx, site, keyValues ? normalizeKeyValues(body) : body);
      return reply.code(201).header('location', created.location).send();
    }
    const { location } = await upsertEntity(ctx, site, body, { keyValues });
    // 204 whether created or updated, with the Location, as Orion answers (IoT Agents accept nothing else).
    return reply.code(204).header('location', location).send();
  });

  app.post('/entities/:assetId/attrs', { schema: appendAttributesSchema }, async (request, reply) => {
    const { site, options } = await writeChecks(request, ['append', 'keyValues']);
    const keyValues = options.has('keyValues');
    if (options.has('append')) await writeAttributes(ctx, site, request, request.params.assetId, 'appendStrict', keyValues);
    else {
      const body = readJsonBody(request);
      await updateAsset(ctx, site, request.params.assetId, keyValues ? normalizeKeyValues(body) : body, { type: typeQuery(request) });
    }
    return reply.code(204).send();
  });

  app.patch('/entities/:assetId/attrs', { schema: patchAttributesSchema }, async (request, reply) => {
    const { site, options } = await writeChecks(request, ['keyValues']);
    await writeAttributes(ctx, site, request, request.params.assetId, 'update', options.has('keyValues'));
    return reply.code(204).send();
  });

  app.put('/entities/:assetId/attrs', { schema: replaceAttributesSchema }, async (request, reply) => {
    const { site, options } = await writeChecks(request, ['keyValues']);
    await writeAttributes(ctx, site, request, request.params.assetId, 'replace', options.has('keyValues'));
    return reply.code(204).send();
  });

  app.put('/entities/:assetId/attrs/:attrName', { schema: replaceAttributeSchema }, async (request, reply) => {
    const { site } = await writeChecks(request, []);
    const { assetId, attrName } = request.params;
    const body = readJsonBody(request);
    const stored = await storedAttribute(ctx, site, request, assetId, attrName);
    const entity = entityOf(assetId, typeQuery(request), attributeReplacement(attrName, body, stored, ctx.clock.now()));
    await writeEntity(ctx, site, { kind: 'attributes', mode: 'update', createMissing: false }, entity, { keyValues: false, attributeLevel: true });
    return reply.code(204).send();
  });

  app.put('/entities/:assetId/attrs/:attrName/value', { schema: replaceAttributeValueSchema }, async (request, reply) => {
    const { site } = await writeChecks(request, []);
    const { assetId, attrName } = request.params;
    const value = readValueBody(request);
    const stored = await storedAttribute(ctx, site, request, assetId, attrName);
    const entity = entityOf(assetId, typeQuery(request), valueReplacement(attrName, value, stored, ctx.clock.now()));
    await writeEntity(ctx, site, { kind: 'attributes', mode: 'update', createMissing: false }, entity, { keyValues: false, attributeLevel: true });
    return reply.code(204).send();
  });

  app.delete('/entities/:assetId/attrs/:attrName', { schema: deleteAttributeSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, service, false);
    checkOptions(request, []);
    const { assetId, attrName } = request.params;
    if (attrName === '') throw badRequest('No attribute name provided');
    const entity: BatchEntity = { id: assetId, type: typeQuery(request), body: {}, attributes: { [attrName]: {} } };
    await writeEntity(ctx, site, { kind: 'delete' }, entity, { keyValues: false, attributeLevel: true });
    return reply.code(204).send();
  });
}
