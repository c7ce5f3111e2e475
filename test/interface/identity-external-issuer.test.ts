import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { registerBearerAuth, requireCaller } from '../../src/http/auth.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { registerClient } from '../../src/identity/clients.js';
import { bearer, describeEachStore } from '../helpers/platform.js';
import { OIDC, basic, tokenRequest } from '../helpers/identity.js';

// A second, independent issuer (as a Keycloak realm would be): its own RS256 key, its JWKS on a loopback port.
const partnerKeys = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(partnerKeys.publicKey)), kid: 'partner-key-1', alg: 'RS256', use: 'sig' };
let jwksFetches = 0;
const jwksServer = http.createServer((req, res) => {
  if (req.url === '/realms/partner/protocol/openid-connect/certs') {
    jwksFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  } else {
    res.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}`;
const PARTNER = `${base}/realms/partner`;
after(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

describeEachStore('identity: trusting an external issuer (AUTH_ISSUER + AUTH_JWKS_URL)', (platform) => {
  let whoami: FastifyInstance;
  before(async () => {
    whoami = Fastify();
    registerErrorHandling(whoami, () => undefined);
    registerBearerAuth(whoami, platform().ctx.verifier);
    whoami.get('/whoami', async (request) => requireCaller(request));
    await whoami.ready();
  });
  after(async () => {
    await whoami.close();
  });

  /** A service-account token as Keycloak issues it. */
  const partnerToken = (claims: Record<string, unknown> = {}, options: { kid?: string; issuer?: string; lifetime?: number } = {}) => {
    const iat = Math.floor(platform().clock.now() / 1000);
    return new SignJWT({
      typ: 'Bearer', azp: 'ocsite-partner', clientId: 'ocsite-partner', preferred_username: 'service-account-ocsite-partner',
      realm_access: { roles: ['ocsite', 'offline_access'] }, resource_access: { 'accounts-permissions': { roles: ['readGlobalRoles'] } }, ...claims,
    })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'partner-key-1', typ: 'JWT' })
      .setIssuer(options.issuer ?? PARTNER).setSubject('7f0c7a8e-1d1b-4c1e-9a55-1b2f3c4d5e6f').setAudience('account')
      .setIssuedAt(iat).setExpirationTime(iat + (options.lifetime ?? 300)).setJti('j-1')
      .sign(partnerKeys.privateKey);
  };
  const health = (token: string) => platform().app.inject({ method: 'GET', url: '/health', headers: bearer(token) });

  it('accepts the external issuer\'s tokens and reads the caller from their claims', async () => {
    const token = await partnerToken();
    assert.equal((await health(token)).statusCode, 200);
    const caller = (await whoami.inject({ method: 'GET', url: '/whoami', headers: bearer(token) })).json();
    assert.equal(caller.clientId, 'ocsite-partner');
    assert.equal(caller.subject, '7f0c7a8e-1d1b-4c1e-9a55-1b2f3c4d5e6f');
    assert.deepEqual(caller.roles, ['ocsite', 'offline_access']);
    assert.deepEqual(caller.permissions, { 'accounts-permissions': ['readGlobalRoles'] });
    assert.ok(jwksFetches >= 1);
  });

  it('reads the newer Keycloak client_id claim too', async () => {
    const token = await partnerToken({ clientId: undefined, client_id: 'ocsite-partner' });
    assert.equal((await whoami.inject({ method: 'GET', url: '/whoami', headers: bearer(token) })).json().clientId, 'ocsite-partner');
  });

  it('refuses the embedded issuer\'s tokens, other issuers, unknown keys, refresh tokens and expired tokens', async () => {
    const embedded = await platform().clientToken('tool-a');
    const cases: Array<[string, RegExp]> = [
      [embedded, /unknown signing key|iss claim check failed/],
      [await partnerToken({}, { issuer: `${base}/realms/other` }), /iss claim check failed/],
      [await partnerToken({}, { kid: 'not-published' }), /unknown signing key/],
      [await partnerToken({ typ: 'Refresh' }), /not an access token/],
      [await partnerToken({}, { lifetime: -1 }), /expired/],
    ];
    for (const [token, description] of cases) {
      const res = await health(token);
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().error, 'Unauthorized');
      assert.match(res.json().description, description);
    }
  });

  it('keeps serving the embedded provider, whose userinfo still knows its own tokens', async () => {
    const { secret } = await registerClient(platform().ctx.store, platform().clock, { clientId: 'local-tool' });
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials' }, basic('local-tool', secret));
    assert.equal(res.statusCode, 200);
    const info = await platform().app.inject({ method: 'GET', url: `${OIDC}/userinfo`, headers: bearer(res.json().access_token) });
    assert.equal(info.statusCode, 200);
    assert.equal(info.json().preferred_username, 'service-account-local-tool');
  });
}, { authIssuer: PARTNER, authJwksUrl: `${PARTNER}/protocol/openid-connect/certs` });
