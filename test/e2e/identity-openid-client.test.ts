import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { registerClient } from '../../src/identity/clients.js';
import { registerUser } from '../../src/identity/users.js';
import { STORES, createTestStore } from '../helpers/stores.js';
import { freePort } from '../helpers/free-port.js';

/** A port nobody listens on now, so that the issuer URL (which openid-client checks exactly) is known before the app is built. */

const REDIRECT = 'http://127.0.0.1/e2e/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

for (const kind of STORES) {
  describe(`identity end to end with openid-client [${kind}]`, () => {
    let opencity: OpenCity;
    let dispose: () => Promise<void>;
    let issuer = '';
    let toolSecret = '';
    let userId = '';

    before(async () => {
      const test = await createTestStore(kind);
      dispose = test.dispose;
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${port}`;
      opencity = await buildApp({ config: testConfig({ databaseUrl: test.db.url, publicUrl }), store: test.store });
      await opencity.app.listen({ port, host: '127.0.0.1' });
      issuer = `${publicUrl}/auth/realms/opencity`;
      const { store, clock } = opencity.ctx;
      ({ secret: toolSecret } = await registerClient(store, clock, { clientId: 'e2e-tool', roles: [{ role: 'e2e-tool:read', experiment: null }] }));
      await registerClient(store, clock, { clientId: 'e2e-web', isPublic: true, redirectUris: [REDIRECT] });
      ({ id: userId } = await registerUser(store, clock, { username: 'dora', email: 'dora@example.org', password: 'dora-secret-pw', roles: [{ role: 'experimenter', experiment: null }] }));
    });
    after(async () => {
      await opencity.app.close();
      await dispose();
    });

    /** Every token verifies against the published JWKS, as any resource server would check it. */
    const verify = async (token: string, audience?: string) => {
      const jwks = createRemoteJWKSet(new URL(`${issuer}/protocol/openid-connect/certs`));
      return (await jwtVerify(token, jwks, { issuer, audience })).payload;
    };

    it('discovers the issuer and gets a client_credentials token (secret in the form, then by HTTP Basic)', async () => {
      const config = await oidc.discovery(new URL(issuer), 'e2e-tool', toolSecret, undefined, insecure);
      assert.equal(config.serverMetadata().issuer, issuer);
      const tokens = await oidc.clientCredentialsGrant(config);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.expires_in, 300);
      const claims = await verify(tokens.access_token);
      assert.equal(claims.clientId, 'e2e-tool');
      assert.deepEqual(claims.resource_access, { 'e2e-tool': { roles: ['read'] } });

      const basicConfig = await oidc.discovery(new URL(issuer), 'e2e-tool', {}, oidc.ClientSecretBasic(toolSecret), insecure);
      const viaBasic = await oidc.clientCredentialsGrant(basicConfig);
      assert.equal((await verify(viaBasic.access_token)).azp, 'e2e-tool');
    });

    it('refuses a wrong secret', async () => {
      // Secret in the form: the OAuth error body.
      const post = await oidc.discovery(new URL(issuer), 'e2e-tool', {}, oidc.ClientSecretPost('wrong-secret'), insecure);
      await assert.rejects(oidc.clientCredentialsGrant(post), (e: { error?: string; status?: number }) => e.status === 401 && e.error === 'invalid_client');
      // HTTP Basic: a 401 with the Basic challenge (RFC 6749 §5.2).
      const basic = await oidc.discovery(new URL(issuer), 'e2e-tool', {}, oidc.ClientSecretBasic('wrong-secret'), insecure);
      await assert.rejects(oidc.clientCredentialsGrant(basic), (e: { code?: string; status?: number; cause?: Array<{ scheme: string }> }) =>
        e.status === 401 && e.code === 'OAUTH_WWW_AUTHENTICATE_CHALLENGE' && e.cause?.[0]?.scheme === 'basic');
    });

    it('gets a password-grant token with an ID token, refreshes it, and reads userinfo', async () => {
      const config = await oidc.discovery(new URL(issuer), 'e2e-tool', toolSecret, undefined, insecure);
      const tokens = await oidc.genericGrantRequest(config, 'password', { username: 'dora', password: 'dora-secret-pw', scope: 'openid' });
      assert.equal(tokens.claims()?.sub, userId);
      assert.equal((await verify(tokens.access_token)).preferred_username, 'dora');
      assert.equal((await verify(tokens.id_token as string, 'e2e-tool')).sub, userId);
      assert.equal(typeof tokens.refresh_token, 'string');

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      assert.equal((await verify(refreshed.access_token)).sub, userId);
      assert.equal(refreshed.claims()?.sub, userId);

      const info = await oidc.fetchUserInfo(config, refreshed.access_token, userId);
      assert.deepEqual(info, { sub: userId, preferred_username: 'dora', email: 'dora@example.org' });

      await oidc.tokenRevocation(config, refreshed.refresh_token as string);
      await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token as string), (e: { error?: string }) => e.error === 'invalid_grant');

      await assert.rejects(oidc.genericGrantRequest(config, 'password', { username: 'dora', password: 'wrong' }), (e: { error?: string }) => e.error === 'invalid_grant');
    });

    it('runs the authorization-code flow with PKCE through the login form, end to end', async () => {
      const config = await oidc.discovery(new URL(issuer), 'e2e-web', undefined, oidc.None(), insecure);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT, scope: 'openid', state, nonce, code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
      });

      // The browser part: open the login page, submit the form with its cookie.
      const page = await fetch(url, { redirect: 'manual' });
      assert.equal(page.status, 200);
      const html = await page.text();
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
      const request = /name="request" value="([^"]+)"/.exec(html)?.[1] as string;
      const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] as string;
      const submitted = await fetch(new URL(action, url), {
        method: 'POST', redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ request, username: 'dora', password: 'dora-secret-pw' }),
      });
      assert.equal(submitted.status, 303);
      const callback = new URL(submitted.headers.get('location') as string);
      assert.equal(`${callback.origin}${callback.pathname}`, REDIRECT);

      const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
      assert.equal(tokens.claims()?.sub, userId);
      assert.equal((await verify(tokens.access_token)).azp, 'e2e-web');
      assert.equal((await verify(tokens.id_token as string, 'e2e-web')).nonce, nonce);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
      assert.equal((await verify(refreshed.access_token)).sub, userId);

      // Signing out ends the session and returns to a registered address.
      const logout = await fetch(oidc.buildEndSessionUrl(config, { id_token_hint: tokens.id_token as string, post_logout_redirect_uri: REDIRECT, state: 'bye' }), { redirect: 'manual' });
      assert.equal(logout.status, 302);
      assert.equal(logout.headers.get('location'), `${REDIRECT}?state=bye`);
      await assert.rejects(oidc.refreshTokenGrant(config, refreshed.refresh_token as string), (e: { error?: string }) => e.error === 'invalid_grant');
    });
  });
}
