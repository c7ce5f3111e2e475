import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { AppError } from '../domain/errors.js';

/**
 * Per-client limit on the writes of an interface (POST, PUT, DELETE), registered
 * in that interface's scope. The bucket is the verified caller's client id (the
 * address when there is no caller, whose request is refused anyway). `perMinute`
 * 0 turns it off. Over the limit: 429 with Retry-After, in the route's error style.
 */
export async function registerWriteRateLimit(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    max: perMinute,
    timeWindow: 60_000,
    // After the bearer check, so that the bucket is the verified client, not a claim.
    hook: 'preHandler',
    allowList: (request: FastifyRequest) => request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS',
    keyGenerator: (request: FastifyRequest) => (request.caller?.tool ? `client:${request.caller.tool}` : `ip:${request.ip}`),
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    addHeaders: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false, 'retry-after': true },
    errorResponseBuilder: (_request, context) => new AppError('TOO_MANY_REQUESTS', `Too many writes; retry in ${context.after}`, {
      retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
    }),
  });
}
