import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { notifySchema } from '../../contracts/federation-writes.js';
import { readNotification } from '../../domain/batch-update.js';
import { failureAnswer } from '../../domain/entity-failures.js';
import { BATCH_ACTIONS, writeEntities } from '../../services/entity-writes.js';
import { checkOptions, readJsonBody, siteOfRequest } from './request.js';

/**
 * POST /v2/op/notify: a notification from a city's own Orion broker,
 * subscribed once with the site's token in its headers; each entity is
 * created or its attributes appended, as /v2/op/update append does. The
 * broker's Fiware-Service header names its own tenant, not this platform, so
 * it is not checked here.
 */
export function notifyRoutes(scope: FastifyInstance, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/op/notify', { schema: notifySchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkOptions(request, []);
    const entities = readNotification(readJsonBody(request));
    const report = await writeEntities(ctx, site, BATCH_ACTIONS.append, entities, { keyValues: false });
    const failed = failureAnswer(report.written, report.failures.map((f) => f.failure));
    if (failed) throw failed;
    return reply.code(200).send();
  });
}
