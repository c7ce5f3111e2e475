import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  createSubscriptionSchema, deleteSubscriptionSchema, getSubscriptionSchema, listSubscriptionsSchema, updateSubscriptionSchema,
} from '../../contracts/subscriptions.js';
import { badRequest } from '../../domain/errors.js';
import { wholeNumberWithin } from '../../domain/whole-number.js';
import { requireCaller } from '../../http/auth.js';
import { changeSubscription, createSubscription, getSubscription, listOwnSubscriptions, removeSubscription } from '../../services/subscriptions.js';
import { checkOptions, checkPlatformService, readJsonBody } from './request.js';

const JSON_TYPE = 'application/json';
/** Orion's default page and its bound. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

type FederationScope = FastifyInstance;

/** JSON as NGSI clients expect it: the media type exactly application/json (a Buffer keeps Fastify from adding a charset). */
function sendJson(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.code(200).header('content-type', JSON_TYPE).send(Buffer.from(JSON.stringify(value)));
}

function pageOf(query: Record<string, unknown>): { limit: number; offset: number } {
  const limit = query.limit === undefined ? DEFAULT_LIMIT : wholeNumberWithin(query.limit, 1, MAX_LIMIT);
  if (limit === undefined) throw badRequest(`Invalid limit: expected a whole number from 1 to ${MAX_LIMIT}`);
  const offset = query.offset === undefined ? 0 : wholeNumberWithin(query.offset, 0, Number.MAX_SAFE_INTEGER);
  if (offset === undefined) throw badRequest('Invalid offset: expected a whole number, 0 or more');
  return { limit, offset };
}

/**
 * NGSI v2 subscriptions at /federation/v2/subscriptions (Orion's resource).
 * Registered inside the federation scope: bodies arrive as bytes and are read
 * by the handlers, which check them against the subscription's schema.
 */
export function subscriptionRoutes(scope: FederationScope, ctx: AppContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const service = ctx.config.platformServiceName;

  app.post('/subscriptions', { schema: createSubscriptionSchema }, async (request, reply) => {
    const caller = requireCaller(request);
    checkPlatformService(request, service, false);
    checkOptions(request, ['skipInitialNotification']);
    const id = await createSubscription(ctx, caller, readJsonBody(request));
    return reply.code(201).header('location', `/v2/subscriptions/${id}`).send();
  });

  app.get('/subscriptions', { schema: listSubscriptionsSchema }, async (request, reply) => {
    const caller = requireCaller(request);
    checkPlatformService(request, service, false);
    const withCount = checkOptions(request, ['count']).has('count');
    const { subscriptions, total } = await listOwnSubscriptions(ctx, caller, pageOf(request.query as Record<string, unknown>), withCount);
    if (total !== undefined) reply.header('fiware-total-count', String(total));
    return sendJson(reply, subscriptions);
  });

  app.get('/subscriptions/:subscriptionId', { schema: getSubscriptionSchema }, async (request, reply) => {
    const caller = requireCaller(request);
    checkPlatformService(request, service, false);
    const subscription = await getSubscription(ctx, caller, request.params.subscriptionId);
    return sendJson(reply, subscription);
  });

  app.patch('/subscriptions/:subscriptionId', { schema: updateSubscriptionSchema }, async (request, reply) => {
    const caller = requireCaller(request);
    checkPlatformService(request, service, false);
    await changeSubscription(ctx, caller, request.params.subscriptionId, readJsonBody(request));
    return reply.code(204).send();
  });

  app.delete('/subscriptions/:subscriptionId', { schema: deleteSubscriptionSchema }, async (request, reply) => {
    const caller = requireCaller(request);
    checkPlatformService(request, service, false);
    await removeSubscription(ctx, caller, request.params.subscriptionId);
    return reply.code(204).send();
  });
}
