import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import { AppError } from '../domain/errors.js';

/** Route config that applies a rate limit (empty when limits are off). */
export type RateLimitRoute = { rateLimit?: RateLimitOptions };

export interface IdentityRateLimits {
  /** Token endpoint: per client (and address), so one misbehaving client cannot starve the others. */
  token: RateLimitRoute;
  /** Login form: per address, to slow down password guessing. */
  login: RateLimitRoute;
}

/** The client a token request names, read without trusting it (it only picks a bucket). */
function claimedClient(request: FastifyRequest): string {
  const auth = request.headers.authorization;
  if (auth && /^basic /i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    return `basic:${decoded.slice(0, Math.max(0, decoded.indexOf(':'))).slice(0, 200)}`;
  }
  const id = (request.body as Record<string, unknown> | undefined)?.client_id;
  return typeof id === 'string' ? `form:${id.slice(0, 200)}` : '-';
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
