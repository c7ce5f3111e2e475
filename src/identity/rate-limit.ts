import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { AppError } from '../domain/errors.js';
import { presentedClient } from './client-auth.js';

/** Route config that applies a rate limit (empty when limits are off). */
export type RateLimitRoute = { rateLimit?: RateLimitOptions };

export interface IdentityRateLimits {
  /** Token endpoint: per client (and address), so one misbehaving client cannot starve the others. */
  token: RateLimitRoute;
  /** Login form: per address, to slow down password guessing. */
  login: RateLimitRoute;
}

/**
 * The client a token request names, as the token endpoint will look it up (HTTP Basic ids
 * form-decoded), so that every spelling of one client shares its bucket. Read without
 * trusting it: it only picks a bucket.
 */
function claimedClient(request: FastifyRequest): string {
  try {
    const presented = presentedClient(request.headers.authorization, (request.body ?? {}) as Record<string, unknown>);
    return presented ? `client:${presented.id.slice(0, 200)}` : '-';
  } catch {
    return '-';
  }
}

/**
 * Registers the limiter in the identity provider's scope only. `perMinute` 0
 * turns it off. Over the limit: 429 with Retry-After, in the route's error style.
 */
export async function registerIdentityRateLimits(app: FastifyInstance, perMinute: number): Promise<IdentityRateLimits> {
  if (perMinute <= 0) return { token: {}, login: {} };
  await app.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (_request, context) => new AppError('TOO_MANY_REQUESTS', `Too many requests; retry in ${context.after}`, {
      retryAfterSeconds: Math.max(1, Math.ceil(context.ttl / 1000)),
    }),
  });
  const common = { max: perMinute, timeWindow: 60_000, hook: 'preHandler' as const };
  return {
    token: { rateLimit: { ...common, keyGenerator: (request: FastifyRequest) => `${claimedClient(request)}|${request.ip}` } },
    login: { rateLimit: { ...common, keyGenerator: (request: FastifyRequest) => request.ip } },
  };
}
