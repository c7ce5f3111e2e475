import assert from 'node:assert/strict';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { after, before, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { registerBearerAuth, requireCaller } from '../../src/http/auth.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { signCompact } from '../../src/identity/jws.js';
import { KeyRing } from '../../src/identity/key-ring.js';
import { issueAccessToken } from '../../src/identity/tokens.js';
import { findClient, findUserById } from '../../src/storage/repositories/principals.js';
import { Store } from '../../src/storage/store.js';
import { bearer, describeEachStore } from '../helpers/platform.js';
import { ISSUER, decodeHeader, decodePayload, verifyWithJwks } from '../helpers/identity.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describeEachStore('identity: bearer authentication', (platform) => {
  let token = '';
  let whoami: FastifyInstance;

  before(async () => {
    token = await platform().clientToken('ocsite-santander', ['ocsite', 'federation:write']);
    // A bare app with only the bearer plugin: what a route of any interface sees.
    whoami = Fastify();
    registerErrorHandling(whoami, () => undefined);
    registerBearerAuth(whoami, platform().ctx.verifier);
    whoami.get('/whoami', async (request) => requireCaller(request));
    whoami.get('/maybe', async (request) => ({ anonymous: request.caller === undefined }));
    await whoami.ready();
  });
  after(async () => {
    await whoami.close();
  });

  const call = (authorization?: string) => platform().app.inject({ method: 'GET', url: '/health', headers: authorization === undefined ? {} : { authorization } });
  const refused = async (authorization: string, description?: RegExp) => {
    const res = await call(authorization);
    assert.equal(res.statusCode, 401, authorization.slice(0, 80));
    assert.equal(res.headers['content-type'], 'application/json');
    assert.match(res.headers['www-authenticate'] as string, /^Bearer realm="opencity"/);
    const body = res.json();
    assert.equal(body.error, 'Unauthorized');
    if (description) assert.match(body.description, description);
  };
  /** A token with our header and claims, re-signed by `sign`. */
  const forge = (header: Record<string, unknown>, claims: Record<string, unknown>, signature: (input: string) => string) => {
    const input = `${b64(header)}.${b64(claims)}`;
    return `${input}.${signature(input)}`;
  };

  it('gives routes the caller: client id, subject, global roles, per-tool permissions', async () => {
    const res = await whoami.inject({ method: 'GET', url: '/whoami', headers: bearer(token) });
    assert.equal(res.statusCode, 200);
    const caller = res.json();
    const client = await findClient(platform().ctx.store, 'ocsite-santander');
    assert.equal(caller.subject, client?.serviceAccountUserId);
    assert.equal(caller.clientId, 'ocsite-santander');
    assert.equal(caller.tool, 'ocsite-santander');
    assert.equal(caller.username, 'service-account-ocsite-santander');
    assert.deepEqual(caller.roles, ['ocsite']);
    assert.deepEqual(caller.permissions, { federation: ['write'] });
    assert.equal(caller.expiresAt, (decodePayload(token).exp as number) * 1000);

    const { token: userToken, userId } = await platform().userToken('carol', ['experimenter', { role: 'participant', experiment: 'e-7' }]);
    const user = (await whoami.inject({ method: 'GET', url: '/whoami', headers: bearer(userToken) })).json();
    assert.equal(user.subject, userId);
    assert.equal(user.clientId, undefined);
    assert.equal(user.tool, 'opencity-observatory');
    assert.equal(user.email, 'carol@example.org');
    assert.deepEqual(user.experimentRoles, [{ role: 'participant', experiment: 'e-7' }]);
  });

  it('leaves anonymous requests anonymous, and requireCaller refuses them with 401', async () => {
    assert.deepEqual((await whoami.inject({ method: 'GET', url: '/maybe' })).json(), { anonymous: true });
    const res = await whoami.inject({ method: 'GET', url: '/whoami' });
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), { error: 'Unauthorized', description: 'No bearer token was supplied' });
    assert.equal((await call()).statusCode, 200);
    assert.equal((await call(`Bearer ${token}`)).statusCode, 200);
  });

  it('refuses a missing or malformed token', async () => {
    await refused('Bearer', /Malformed Authorization header/);
    await refused('Bearer ', /Malformed Authorization header/);
    await refused('Bearer two tokens', /Malformed Authorization header/);
    await refused('Bearer not-a-jwt', /malformed/);
    await refused('Bearer a.b.c', /malformed/);
    await refused(`Bearer ${b64({ alg: 'ES256' })}.!!!.x`, /malformed/);
  });

  it('refuses a token whose signature does not match', async () => {
    await refused(`Bearer ${token.slice(0, -6)}AAAAAA`, /invalid signature/);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const header = decodeHeader(token);
    const forged = signCompact({ alg: 'ES256', kid: header.kid as string, typ: 'JWT' }, { ...decodePayload(token), realm_access: { roles: ['administrator'] } }, other.privateKey);
    await refused(`Bearer ${forged}`, /invalid signature/);
  });

  it('refuses alg none and HS256 signed with the public key', async () => {
    const header = decodeHeader(token);
    const claims = decodePayload(token);
    await refused(`Bearer ${b64({ alg: 'none', kid: header.kid })}.${b64(claims)}.`, /algorithm not allowed|malformed/);
    await refused(`Bearer ${b64({ alg: 'none' })}.${b64(claims)}.`);
    const jwks = (await platform().app.inject({ method: 'GET', url: '/auth/realms/opencity/protocol/openid-connect/certs' })).body;
    const hs = forge({ alg: 'HS256', kid: header.kid, typ: 'JWT' }, claims, (input) => createHmac('sha256', jwks).update(input).digest('base64url'));
    await refused(`Bearer ${hs}`, /algorithm not allowed/);
  });

  it('refuses a token of another issuer, an unknown key, and an ID token', async () => {
    const key = platform().ctx.keys.current();
    const claims = decodePayload(token);
    const otherIssuer = signCompact({ alg: key.alg, kid: key.kid, typ: 'JWT' }, { ...claims, iss: 'http://evil.example/auth/realms/opencity' }, key.privateKey);
    await refused(`Bearer ${otherIssuer}`, /iss claim check failed/);
    const unknownKid = signCompact({ alg: key.alg, kid: 'no-such-key', typ: 'JWT' }, claims, key.privateKey);
    await refused(`Bearer ${unknownKid}`, /unknown signing key/);
    const idToken = signCompact({ alg: key.alg, kid: key.kid, typ: 'JWT' }, { ...claims, typ: 'ID' }, key.privateKey);
    await refused(`Bearer ${idToken}`, /not an access token/);
    const noSubject = signCompact({ alg: key.alg, kid: key.kid, typ: 'JWT' }, { ...claims, sub: undefined }, key.privateKey);
    await refused(`Bearer ${noSubject}`, /sub/);
  });

  it('refuses an expired token, cached or not', async () => {
    const fresh = await platform().clientToken('ocsite-santander');
    assert.equal((await call(`Bearer ${fresh}`)).statusCode, 200, 'now cached');
    const never = await platform().clientToken('ocsite-santander');
    platform().clock.advance(300_000);
    await refused(`Bearer ${fresh}`, /expired/);
    await refused(`Bearer ${never}`, /expired/);
  });

  it('still verifies a token issued before a restart', async () => {
    const before = await platform().clientToken('ocsite-santander');
    const store = Store.open(platform().db.url);
    const restarted = await buildApp({ config: testConfig({ databaseUrl: platform().db.url }), store, clock: platform().clock });
    try {
      const res = await restarted.app.inject({ method: 'GET', url: '/health', headers: bearer(before) });
      assert.equal(res.statusCode, 200);
      // …and the new process signs with the same key.
      assert.deepEqual(restarted.ctx.keys.current().kid, decodeHeader(before).kid);
    } finally {
      await restarted.app.close();
      await store.close();
    }
  });

  it('keeps tokens of the previous key valid after a rotation, until they expire', async () => {
    const old = await platform().clientToken('ocsite-santander');
    const oldKid = decodeHeader(old).kid;
    const kid = await platform().ctx.keys.rotate();
    assert.notEqual(kid, oldKid);
    const fresh = await platform().clientToken('ocsite-santander');
    assert.equal(decodeHeader(fresh).kid, kid);
    const jwks = (await platform().app.inject({ method: 'GET', url: '/auth/realms/opencity/protocol/openid-connect/certs' })).json();
    assert.deepEqual(jwks.keys.map((k: { kid: string }) => k.kid).sort(), [kid, oldKid].sort());
    for (const t of [old, fresh]) {
      assert.equal((await call(`Bearer ${t}`)).statusCode, 200);
      await verifyWithJwks(platform().app, t, { currentDate: new Date(platform().clock.now()) });
    }
    platform().clock.advance(300_000);
    await refused(`Bearer ${old}`, /expired/);
  });

  it('verifies tokens signed with a key another process rotated in', async () => {
    const elsewhere = new KeyRing(platform().ctx.store, platform().clock, 600_000);
    await elsewhere.load();
    const kid = await elsewhere.rotate();
    const client = await findClient(platform().ctx.store, 'ocsite-santander');
    const user = await findUserById(platform().ctx.store, client!.serviceAccountUserId);
    const issued = await issueAccessToken({ ...platform().ctx.tokens, keys: elsewhere }, { user: user!, clientId: 'ocsite-santander', serviceAccountOf: 'ocsite-santander', scope: 'profile email' });
    assert.equal(decodeHeader(issued.accessToken).kid, kid);
    assert.equal((await call(`Bearer ${issued.accessToken}`)).statusCode, 200);
    const jwks = (await platform().app.inject({ method: 'GET', url: '/auth/realms/opencity/protocol/openid-connect/certs' })).json();
    assert.ok(jwks.keys.some((k: { kid: string }) => k.kid === kid));
    assert.equal(decodePayload(issued.accessToken).iss, ISSUER);
  });
});

describeEachStore('identity: bearer authentication with an audience', (platform) => {
  it('accepts only tokens whose aud names AUTH_AUDIENCE', async () => {
    // The embedded issuer puts AUTH_AUDIENCE into its tokens: one without it comes from an issuer (same keys) configured otherwise.
    await platform().clientToken('tool-a');
    const client = await findClient(platform().ctx.store, 'tool-a');
    const user = await findUserById(platform().ctx.store, client!.serviceAccountUserId);
    const elsewhere = { ...platform().ctx.tokens, audience: undefined };
    const other = (await issueAccessToken(elsewhere, { user: user!, clientId: 'tool-a', serviceAccountOf: 'tool-a', scope: 'profile email' })).accessToken;
    const mine = await platform().clientToken('datasource-api');
    const refused = await platform().app.inject({ method: 'GET', url: '/health', headers: bearer(other) });
    assert.equal(refused.statusCode, 401);
    assert.match(refused.json().description, /aud claim check failed/);
    assert.equal((await platform().app.inject({ method: 'GET', url: '/health', headers: bearer(mine) })).statusCode, 200);
  });
}, { authAudience: 'datasource-api' });
