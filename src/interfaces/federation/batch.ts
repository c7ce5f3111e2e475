import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { batchUpdateSchema } from '../../contracts/federation-writes.js';
import { readBatchUpdate } from '../../domain/batch-update.js';
import { failureAnswer } from '../../domain/entity-failures.js';
import { BATCH_ACTIONS, writeEntities } from '../../services/entity-writes.js';
import { checkOptions, checkPlatformService, readJsonBody, siteOfRequest } from './request.js';

/**
 * POST /v2/op/update: up to 1,000 entities, each written as its single
 * operation, all in one commit; not atomic. 204, or Orion's 404 / 422 naming
 * what failed while everything valid is stored.
 */
export function batchUpdateRoutes(scope: FastifyInstance, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/op/update', { schema: batchUpdateSchema }, async (request, reply) => {
    const site = await siteOfRequest(request, ctx);
    checkPlatformService(request, ctx.config.platformServiceName, true);
    const keyValues = checkOptions(request, ['keyValues']).has('keyValues');
    const batch = readBatchUpdate(readJsonBody(request));
    const report = await writeEntities(ctx, site, BATCH_ACTIONS[batch.action], batch.entities, { keyValues });
    const failed = failureAnswer(report.written, report.failures.map((f) => f.failure));
    if (failed) throw failed;
    return reply.code(204).send();
  });
}
