import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { registerClient } from '../../src/identity/clients.js';
import { registerUser } from '../../src/identity/users.js';
import { findClient, grantRole } from '../../src/storage/repositories/principals.js';
import { describeEachStore } from '../helpers/platform.js';
import { ISSUER, basic, decodePayload, tokenRequest, verifyWithJwks } from '../helpers/identity.js';

const ADMIN_SECRET = 'admin-secret-for-the-identity-tests';

describeEachStore('identity: client_credentials grant', (platform) => {
  let secret = '';

  before(async () => {
    const { ctx, clock } = platform();
    ({ secret } = await registerClient(ctx.store, clock, { clientId: 'tool-a', roles: [{ role: 'experimenter', experiment: null }, { role: 'tool-a:reader', experiment: null }] }));
  });

  it('issues a Keycloak-shaped token for a secret in the form', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'tool-a', client_secret: secret });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^application\/json/);
    assert.equal(res.headers['cache-control'], 'no-store');
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'not-before-policy', 'refresh_expires_in', 'scope', 'token_type']);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 300);
    assert.equal(body.refresh_expires_in, 0);
    assert.equal(body.scope, 'profile email');

    const claims = await verifyWithJwks(platform().app, body.access_token, { currentDate: new Date(platform().clock.now()) });
    const client = await findClient(platform().ctx.store, 'tool-a');
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.sub, client?.serviceAccountUserId);
    assert.deepEqual(claims.aud, ['account', 'tool-a']);
    assert.equal(claims.azp, 'tool-a');
    assert.equal(claims.clientId, 'tool-a');
    assert.equal(claims.typ, 'Bearer');
    assert.equal(claims.preferred_username, 'service-account-tool-a');
    assert.deepEqual(claims.realm_access, { roles: ['experimenter'] });
    assert.deepEqual(claims.resource_access, { 'tool-a': { roles: ['reader'] } });
    assert.equal((claims.exp as number) - (claims.iat as number), 300);
    assert.equal(claims.iat, Math.floor(platform().clock.now() / 1000));
    assert.equal(typeof claims.jti, 'string');
  });

  it('accepts the secret by HTTP Basic', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials' }, basic('tool-a', secret));
    assert.equal(res.statusCode, 200);
    assert.equal(decodePayload(res.json().access_token).clientId, 'tool-a');
  });

  it('refuses a wrong secret and an unknown client with the same 401 invalid_client', async () => {
    const wrong = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'tool-a', client_secret: `${secret}x` });
    const unknown = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'no-such-tool', client_secret: secret });
    const basicWrong = await tokenRequest(platform().app, { grant_type: 'client_credentials' }, basic('tool-a', 'nope'));
    for (const res of [wrong, unknown, basicWrong]) {
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.deepEqual(res.json(), { error: 'invalid_client', error_description: 'Invalid client or Invalid client credentials' });
    }
    // RFC 6749 §5.2: the Basic challenge answers clients that authenticated with HTTP Basic.
    assert.match(basicWrong.headers['www-authenticate'] as string, /^Basic realm="opencity"/);
    assert.equal(wrong.headers['www-authenticate'], undefined);
  });

  it('refuses a request without client authentication', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().error, 'invalid_client');
    const noSecret = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'tool-a' });
    assert.equal(noSecret.statusCode, 401);
    assert.equal(noSecret.json().error, 'invalid_client');
  });

  it('refuses malformed HTTP Basic credentials with 401, not a crash', async () => {
    for (const header of ['Basic !!!', `Basic ${Buffer.from('no-colon').toString('base64')}`, `Basic ${Buffer.from('%E0%A4%A:x').toString('base64')}`]) {
      const res = await tokenRequest(platform().app, { grant_type: 'client_credentials' }, header);
      assert.equal(res.statusCode, 401, header);
      assert.equal(res.json().error, 'invalid_client');
    }
  });

  it('refuses two different clients in one request', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'other' }, basic('tool-a', secret));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'invalid_request');
  });

  it('answers a missing or unknown grant_type as OAuth errors', async () => {
    const missing = await tokenRequest(platform().app, { client_id: 'tool-a', client_secret: secret });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), { error: 'invalid_request', error_description: 'Missing form parameter: grant_type' });
    for (const grant of ['implicit', '__proto__', 'constructor', 'urn:ietf:params:oauth:grant-type:device_code']) {
      const res = await tokenRequest(platform().app, { grant_type: grant, client_id: 'tool-a', client_secret: secret });
      assert.equal(res.statusCode, 400, grant);
      assert.equal(res.json().error, 'unsupported_grant_type');
    }
  });

  it('refuses a JSON body and repeated parameters with invalid_request', async () => {
    const json = await platform().app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ grant_type: 'client_credentials', client_id: 'tool-a', client_secret: secret }),
    });
    assert.equal(json.statusCode, 400);
    assert.equal(json.json().error, 'invalid_request');
    const repeated = await platform().app.inject({
      method: 'POST', url: '/auth/realms/opencity/protocol/openid-connect/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=tool-a&client_id=tool-b&client_secret=${secret}`,
    });
    assert.equal(repeated.statusCode, 400);
    assert.equal(repeated.json().error, 'invalid_request');
  });

  it('does not let a public client use client_credentials', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'opencity-observatory' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'unauthorized_client');
  });

  it('reads roles when the token is issued, composites expanded', async () => {
    const { ctx, clock } = platform();
    const client = await findClient(ctx.store, 'tool-a');
    await grantRole(ctx.store, client!.serviceAccountUserId, { role: 'administrator', experiment: null }, clock.now());
    await grantRole(ctx.store, client!.serviceAccountUserId, { role: 'participant', experiment: 'exp-1' }, clock.now());
    const claims = decodePayload((await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'tool-a', client_secret: secret })).json().access_token);
    assert.deepEqual((claims.realm_access as { roles: string[] }).roles.sort(), ['administrator', 'experimenter', 'participant']);
    assert.deepEqual(claims.resource_access, { 'tool-a': { roles: ['reader'] }, scenarios: { roles: ['admin'] }, 'site-manager': { roles: ['role-admin'] } });
    assert.deepEqual(claims.experiment_roles, [{ role: 'participant', experiment: 'exp-1' }]);
  });

  it('gives the bootstrap client opencity-admin every accounts-permissions permission', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials' }, basic('opencity-admin', ADMIN_SECRET));
    assert.equal(res.statusCode, 200);
    const claims = decodePayload(res.json().access_token);
    assert.equal(claims.clientId, 'opencity-admin');
    assert.deepEqual((claims.resource_access as Record<string, { roles: string[] }>)['accounts-permissions']?.roles.sort(), [
      'createClient', 'editClientRedirectUris', 'editGlobalRoles', 'editLocalRoles', 'findUserByEmail', 'listUsers', 'readClientRedirectUris', 'readGlobalRoles', 'readLocalRoles',
    ]);
  });

  it('passes the scope it knows and drops the others', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'client_credentials', client_id: 'tool-a', client_secret: secret, scope: 'email bogus profile' });
    assert.equal(res.json().scope, 'profile email');
  });
}, { adminSecret: ADMIN_SECRET });

describeEachStore('identity: password and refresh_token grants', (platform) => {
  let secret = '';
  let aliceId = '';

  before(async () => {
    const { ctx, clock } = platform();
    ({ secret } = await registerClient(ctx.store, clock, { clientId: 'portal' }));
    await registerClient(ctx.store, clock, { clientId: 'other-portal' });
    ({ id: aliceId } = await registerUser(ctx.store, clock, { username: 'alice', email: 'alice@example.org', password: 'correct horse battery', roles: [{ role: 'experimenter', experiment: null }] }));
  });

  const password = (form: Record<string, string> = {}) =>
    tokenRequest(platform().app, { grant_type: 'password', username: 'alice', password: 'correct horse battery', ...form }, basic('portal', secret));

  it('issues an access and a refresh token for a user name and password', async () => {
    const res = await password();
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 300);
    assert.equal(body.refresh_expires_in, 1800);
    assert.equal(typeof body.refresh_token, 'string');
    assert.equal(body.id_token, undefined);
    const claims = await verifyWithJwks(platform().app, body.access_token, { currentDate: new Date(platform().clock.now()) });
    assert.equal(claims.sub, aliceId);
    assert.equal(claims.azp, 'portal');
    assert.equal(claims.clientId, undefined);
    assert.equal(claims.preferred_username, 'alice');
    assert.equal(claims.email, 'alice@example.org');
    assert.equal(claims.sid, body.session_state);
    assert.deepEqual(claims.realm_access, { roles: ['experimenter'] });
  });

  it('adds an ID token for scope openid', async () => {
    const body = (await password({ scope: 'openid' })).json();
    assert.equal(body.scope, 'openid profile email');
    const id = await verifyWithJwks(platform().app, body.id_token, { audience: 'portal', currentDate: new Date(platform().clock.now()) });
    assert.equal(id.sub, aliceId);
    assert.equal(id.typ, 'ID');
    assert.equal(id.azp, 'portal');
    assert.equal(id.auth_time, Math.floor(platform().clock.now() / 1000));
    assert.equal(id.sid, body.session_state);
  });

  it('accepts the e-mail address as the login', async () => {
    assert.equal((await password({ username: 'alice@example.org' })).statusCode, 200);
  });

  it('refuses a wrong password and an unknown user with the same invalid_grant', async () => {
    const wrong = await password({ password: 'wrong' });
    const unknown = await password({ username: 'mallory' });
    const serviceAccount = await password({ username: 'service-account-portal', password: '' });
    for (const res of [wrong, unknown]) {
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { error: 'invalid_grant', error_description: 'Invalid user credentials' });
    }
    assert.equal(serviceAccount.statusCode, 400);
  });

  it('refuses missing parameters with invalid_request', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'password', username: 'alice' }, basic('portal', secret));
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'invalid_request', error_description: 'Missing form parameter: password' });
  });

  it('does not let a public client use the password grant', async () => {
    const res = await tokenRequest(platform().app, { grant_type: 'password', client_id: 'opencity-observatory', username: 'alice', password: 'correct horse battery' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().error, 'unauthorized_client');
  });

  const refresh = (token: string, client: [string, string] = ['portal', secret]) =>
    tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: token }, basic(...client));

  it('refreshes: new tokens with roles read again, the old refresh token stops working', async () => {
    const first = (await password({ scope: 'openid' })).json();
    await grantRole(platform().ctx.store, aliceId, { role: 'administrator', experiment: null }, platform().clock.now());
    platform().clock.advance(60_000);
    const res = await refresh(first.refresh_token);
    assert.equal(res.statusCode, 200);
    const second = res.json();
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal(second.session_state, first.session_state);
    const claims = decodePayload(second.access_token);
    assert.ok((claims.realm_access as { roles: string[] }).roles.includes('administrator'));
    assert.equal(claims.iat, Math.floor(platform().clock.now() / 1000));
    const id = decodePayload(second.id_token);
    assert.equal(id.auth_time, decodePayload(first.id_token).auth_time, 'auth_time is when the person signed in');

    // Replaying the rotated token is refused and ends the session: its successor stops working too.
    const replay = await refresh(first.refresh_token);
    assert.equal(replay.statusCode, 400);
    assert.equal(replay.json().error, 'invalid_grant');
    const successor = await refresh(second.refresh_token);
    assert.equal(successor.statusCode, 400);
    assert.equal(successor.json().error, 'invalid_grant');
  });

  it('refuses a refresh token of another client, an unknown one, and a missing one', async () => {
    const { refresh_token } = (await password()).json();
    const { secret: otherSecret } = await registerClient(platform().ctx.store, platform().clock, { clientId: 'third-portal' });
    const other = await refresh(refresh_token, ['third-portal', otherSecret]);
    assert.equal(other.statusCode, 400);
    assert.deepEqual(other.json(), { error: 'invalid_grant', error_description: 'Invalid refresh token' });
    assert.equal((await refresh('not-a-refresh-token')).json().error, 'invalid_grant');
    const missing = await tokenRequest(platform().app, { grant_type: 'refresh_token' }, basic('portal', secret));
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().error, 'invalid_request');
    // The right client can still use it.
    assert.equal((await refresh(refresh_token)).statusCode, 200);
  });

  it('lets a refresh token expire after 30 idle minutes', async () => {
    const { refresh_token } = (await password()).json();
    platform().clock.advance(30 * 60_000 + 1000);
    const res = await refresh(refresh_token);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { error: 'invalid_grant', error_description: 'Refresh token expired' });
  });

  it('ends a session after 10 hours however often it is refreshed', async () => {
    let token = (await password()).json().refresh_token as string;
    let refreshed = 0;
    for (let i = 0; i < 40; i++) {
      platform().clock.advance(25 * 60_000);
      const res = await refresh(token);
      if (res.statusCode !== 200) break;
      token = res.json().refresh_token;
      refreshed++;
    }
    assert.equal(refreshed, 23, '10 h / 25 min: the 24th refresh comes after the session ended');
  });

  it('keeps an offline token (scope offline_access) for days', async () => {
    const body = (await password({ scope: 'offline_access' })).json();
    assert.equal(body.refresh_expires_in, 0);
    platform().clock.advance(5 * 24 * 3600_000);
    const res = await refresh(body.refresh_token);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().scope, 'profile email offline_access');
  });
});

describeEachStore('identity: token endpoint rate limit', (platform) => {
  let secret = '';
  before(async () => {
    ({ secret } = await registerClient(platform().ctx.store, platform().clock, { clientId: 'greedy' }));
  });

  it('answers 429 with Retry-After once a client goes over its limit; other clients are unaffected', async () => {
    const ask = (id: string, s: string) => tokenRequest(platform().app, { grant_type: 'client_credentials' }, basic(id, s));
    for (let i = 0; i < 3; i++) assert.equal((await ask('greedy', secret)).statusCode, 200);
    const res = await ask('greedy', secret);
    assert.equal(res.statusCode, 429);
    assert.match(res.headers['retry-after'] as string, /^\d+$/);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.equal(res.json().error, 'TooManyRequests');
    assert.match(res.json().error_description, /retry in/);
    assert.equal((await ask('opencity-admin', 'x'.repeat(20))).statusCode, 401, 'another client still gets an answer');
  });
}, { tokenRateLimit: 3 });
