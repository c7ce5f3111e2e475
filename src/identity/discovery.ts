import type { FastifyInstance } from 'fastify';
import { DiscoveryDocument, Jwks } from '../contracts/identity.js';
import { SUPPORTED_SCOPES } from '../domain/oauth.js';
import type { KeyRing } from './key-ring.js';

/** The OpenID Provider metadata (OpenID Connect Discovery 1.0): only what this provider really does. */
export function discoveryDocument(issuer: string, signingAlg: string) {
  const oidc = `${issuer}/protocol/openid-connect`;
  return {
    issuer,
    authorization_endpoint: `${oidc}/auth`,
    token_endpoint: `${oidc}/token`,
    userinfo_endpoint: `${oidc}/userinfo`,
    end_session_endpoint: `${oidc}/logout`,
    revocation_endpoint: `${oidc}/revoke`,
    jwks_uri: `${oidc}/certs`,
    grant_types_supported: ['client_credentials', 'password', 'refresh_token', 'authorization_code'],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [signingAlg],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...SUPPORTED_SCOPES],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'azp', 'auth_time', 'nonce', 'sid', 'clientId', 'preferred_username', 'email', 'realm_access', 'resource_access', 'experiment_roles'],
    authorization_response_iss_parameter_supported: true,
    request_parameter_supported: false,
    claims_parameter_supported: false,
  };
}

export function discoveryRoutes(app: FastifyInstance, issuer: string, keys: KeyRing): void {
  app.get('/.well-known/openid-configuration', {
    schema: { tags: ['identity'], summary: 'OpenID Connect discovery document', response: { 200: DiscoveryDocument } },
  }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return discoveryDocument(issuer, keys.current().alg);
  });

  app.get('/protocol/openid-connect/certs', {
    schema: { tags: ['identity'], summary: 'JSON Web Key Set: the public keys that sign tokens', response: { 200: Jwks } },
  }, async (_request, reply) => {
    // A key rotated by another process must appear here at once: verifiers fetch this when they meet a new kid.
    await keys.fresh(5_000);
    reply.header('cache-control', 'public, max-age=60');
    return keys.jwks();
  });
}
