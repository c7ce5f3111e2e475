import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore } from '../helpers/platform.js';
import { ISSUER, OIDC, REALM } from '../helpers/identity.js';

describeEachStore('identity: discovery and keys', (platform) => {
  it('publishes the OpenID Connect discovery document with the exact issuer', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `${REALM}/.well-known/openid-configuration` });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.match(res.headers['cache-control'] as string, /max-age=\d+/);
    const doc = res.json();
    assert.equal(doc.issuer, ISSUER);
    assert.equal(doc.token_endpoint, `${ISSUER}/protocol/openid-connect/token`);
    assert.equal(doc.authorization_endpoint, `${ISSUER}/protocol/openid-connect/auth`);
    assert.equal(doc.jwks_uri, `${ISSUER}/protocol/openid-connect/certs`);
    assert.equal(doc.userinfo_endpoint, `${ISSUER}/protocol/openid-connect/userinfo`);
    assert.equal(doc.end_session_endpoint, `${ISSUER}/protocol/openid-connect/logout`);
    assert.equal(doc.revocation_endpoint, `${ISSUER}/protocol/openid-connect/revoke`);
    assert.deepEqual(doc.grant_types_supported, ['client_credentials', 'password', 'refresh_token', 'authorization_code']);
    assert.deepEqual(doc.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(doc.response_types_supported, ['code']);
    assert.deepEqual(doc.id_token_signing_alg_values_supported, ['ES256']);
    assert.equal(doc.authorization_response_iss_parameter_supported, true);
  });

  it('publishes only public keys, each with kid, alg and use', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `${OIDC}/certs` });
    assert.equal(res.statusCode, 200);
    const { keys } = res.json();
    assert.ok(keys.length >= 1);
    for (const key of keys) {
      assert.equal(key.kty, 'EC');
      assert.equal(key.crv, 'P-256');
      assert.equal(key.alg, 'ES256');
      assert.equal(key.use, 'sig');
      assert.equal(typeof key.kid, 'string');
      assert.equal(key.d, undefined, 'never the private part');
    }
  });

  it('lists the identity endpoints in the OpenAPI document', async () => {
    const doc = (await platform().app.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const path of ['/.well-known/openid-configuration', '/protocol/openid-connect/token', '/protocol/openid-connect/certs', '/protocol/openid-connect/auth', '/protocol/openid-connect/userinfo', '/protocol/openid-connect/logout']) {
      const entry = doc.paths[`${REALM}${path}`];
      assert.ok(entry, path);
      const operation = (entry.get ?? entry.post) as { tags: string[] };
      assert.deepEqual(operation.tags, ['identity']);
    }
  });

  it('answers an unknown identity path with a JSON 404', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `${OIDC}/nothing-here` });
    assert.equal(res.statusCode, 404);
    assert.equal(res.headers['content-type'], 'application/json');
  });
});
