import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OAuthError, TokenRequest, TokenResponse } from '../contracts/identity.js';
import { AppError } from '../domain/errors.js';
import { authenticateTokenClient, presentedClient } from './client-auth.js';
import { GRANTS, type TokenForm } from './grants.js';
import type { RateLimitRoute } from './rate-limit.js';
import { attemptSource, type TokenIssuer } from './tokens.js';

const invalidRequest = (description: string): AppError => new AppError('INVALID_REQUEST', description);

/** The form as strings; anything else (a repeated parameter, a JSON body) is a malformed request. */
function tokenForm(request: FastifyRequest): TokenForm {
  if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
    throw invalidRequest('The token endpoint takes application/x-www-form-urlencoded bodies');
  }
  const body = (request.body ?? {}) as Record<string, unknown>;
  if (body.grant_type === undefined || body.grant_type === '') throw invalidRequest('Missing form parameter: grant_type');
  if (request.validationError) throw invalidRequest(`Invalid form: ${request.validationError.message}`);
  const form: TokenForm = {};
  for (const [k, v] of Object.entries(body)) {
    if (typeof v !== 'string') throw invalidRequest(`Form parameter ${k} must appear once`);
    form[k] = v;
  }
  return form;
}

/** POST …/protocol/openid-connect/token (RFC 6749 §3.2), answered as Keycloak answers it. */
export function tokenEndpoint(app: FastifyInstance, issuer: TokenIssuer, rateLimit: RateLimitRoute): void {
  app.post('/protocol/openid-connect/token', {
    attachValidation: true,
    config: { errorStyle: 'oauth', ...rateLimit },
    schema: {
      tags: ['identity'],
      summary: 'Token endpoint: client_credentials, password, refresh_token, authorization_code (PKCE S256)',
      description: 'Client authentication by HTTP Basic or client_id/client_secret in the form; public clients send client_id only.',
      consumes: ['application/x-www-form-urlencoded'],
      body: TokenRequest,
      response: { 200: TokenResponse, '4xx': OAuthError },
    },
  }, async (request, reply) => {
    const form = tokenForm(request);
    const grantType = form.grant_type as string;
    const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
    if (!grant) throw new AppError('UNSUPPORTED_GRANT_TYPE', `Unsupported grant_type: ${grantType}`);
    const source = attemptSource(issuer, request.ip);
    const client = await authenticateTokenClient(issuer.store, presentedClient(request.headers.authorization, form), source);
    const body = await grant(issuer, client, form, source);
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return body;
  });
}
