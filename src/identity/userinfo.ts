import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OAuthError, UserInfo } from '../contracts/identity.js';
import { AppError } from '../domain/errors.js';
import { userInfo } from '../domain/token-claims.js';
import { findUserById } from '../storage/repositories/principals.js';
import type { TokenIssuer } from './tokens.js';
import type { TokenVerifier } from './verifier.js';
import { bearerRequired } from '../contracts/security.js';

const BEARER = /^Bearer +(\S+) *$/i;

/** A refused token: the answer's challenge (RFC 6750 §3) names the problem. */
const invalidToken = (description: string): AppError =>
  new AppError('INVALID_TOKEN', description, { credentials: 'bearer', tokenRefused: true });

/** The subject of an access token this provider issued (another issuer's tokens are not ours to describe). */
async function tokenSubject(request: FastifyRequest, verifier: TokenVerifier): Promise<string> {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (!match) throw new AppError('INVALID_TOKEN', 'No bearer token was supplied', { credentials: 'bearer' });
  try {
    return (await verifier.verify(match[1] as string)).subject;
  } catch (error) {
    throw invalidToken(error instanceof AppError ? error.message : 'Invalid token');
  }
}

/** GET|POST …/protocol/openid-connect/userinfo (OpenID Connect Core §5.3). */
export function userinfoRoutes(app: FastifyInstance, issuer: TokenIssuer, verifier: TokenVerifier): void {
  const options = {
    config: { errorStyle: 'oauth' as const },
    schema: {
      tags: ['identity'],
      summary: 'Who the bearer of an access token is',
      security: bearerRequired,
      response: { 200: UserInfo, '4xx': OAuthError },
    },
  };
  const handler = async (request: FastifyRequest) => {
    const subject = await tokenSubject(request, verifier);
    const user = await findUserById(issuer.store, subject);
    if (!user) throw invalidToken('The user of this token no longer exists');
    return userInfo(user);
  };
  app.get('/protocol/openid-connect/userinfo', options, handler);
  app.post('/protocol/openid-connect/userinfo', options, handler);
}
