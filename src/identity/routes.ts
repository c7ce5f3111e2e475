import type { FastifyInstance, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import { AppError } from '../domain/errors.js';
import { findUserById } from '../storage/repositories/principals.js';
import type { AppContext } from '../context.js';
import { authenticateClient } from './clients.js';
import { issueAccessToken } from './tokens.js';

export const REALM_PATH = '/auth/realms/opencity';

const oauth = (status: 'INVALID_CLIENT' | 'INVALID_GRANT' | 'UNSUPPORTED_GRANT_TYPE' | 'INVALID_REQUEST', description: string): AppError =>
  new AppError(status, description, status === 'INVALID_CLIENT' ? { 'www-authenticate': 'Basic realm="opencity"' } : undefined);

/** Client id and secret from HTTP Basic or the form (RFC 6749 §2.3.1). */
function clientCredentials(request: FastifyRequest, form: Record<string, string | undefined>): { id: string; secret: string } | undefined {
  const header = request.headers.authorization;
  if (header && /^basic /i.test(header)) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) return undefined;
    return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
  }
  if (form.client_id) return { id: form.client_id, secret: form.client_secret ?? '' };
  return undefined;
}

const TokenForm = Type.Record(Type.String(), Type.String());

/** The embedded OpenID Connect provider at /auth/realms/opencity. */
export async function identityRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  const issuer = `${ctx.config.publicUrl}${REALM_PATH}`;
  const oidc = `${issuer}/protocol/openid-connect`;

  app.get('/.well-known/openid-configuration', { schema: { tags: ['identity'], summary: 'OpenID Connect discovery document' } }, async () => ({
    issuer,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    userinfo_endpoint: `${oidc}/userinfo`,
    end_session_endpoint: `${oidc}/logout`,
    jwks_uri: `${oidc}/certs`,
    grant_types_supported: ['client_credentials', 'password', 'refresh_token', 'authorization_code'],
    response_types_supported: ['code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'jti', 'azp', 'clientId', 'preferred_username', 'email', 'realm_access', 'resource_access'],
  }));

  app.get('/protocol/openid-connect/certs', { schema: { tags: ['identity'], summary: 'JSON Web Key Set' } }, async () => ctx.keys.jwks());

  app.post('/protocol/openid-connect/token', {
    config: { errorStyle: 'oauth' },
    schema: { tags: ['identity'], summary: 'Token endpoint', consumes: ['application/x-www-form-urlencoded'], body: TokenForm },
  }, async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const grantType = form.grant_type;
    if (!grantType) throw oauth('INVALID_REQUEST', 'Missing form parameter: grant_type');
    const creds = clientCredentials(request, form);
    if (grantType !== 'client_credentials') throw oauth('UNSUPPORTED_GRANT_TYPE', `Unsupported grant_type: ${grantType}`);
    if (!creds) throw oauth('INVALID_CLIENT', 'Client authentication is required');
    const client = await authenticateClient(ctx.store, creds.id, creds.secret);
    if (!client) throw oauth('INVALID_CLIENT', 'Invalid client credentials');
    const user = await findUserById(ctx.store, client.serviceAccountUserId);
    if (!user) throw oauth('INVALID_CLIENT', 'Invalid client credentials');
    const token = await issueAccessToken(ctx.tokens, { user, clientId: client.id, serviceAccountOf: client.id, scope: form.scope ?? 'profile email' });
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    return { access_token: token.accessToken, expires_in: token.expiresIn, refresh_expires_in: 0, token_type: 'Bearer', 'not-before-policy': 0, scope: token.claims.scope };
  });
}
