import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { registerClient } from '../../src/identity/clients.js';
import { registerUser } from '../../src/identity/users.js';
import { bearer, describeEachStore } from '../helpers/platform.js';
import { ISSUER, OIDC, basic, decodePayload, formPost, loginFormState, pkce, tokenRequest, verifyWithJwks } from '../helpers/identity.js';

const WEB = 'http://app.example/callback';
const SERVER = 'https://server.example/cb';

describeEachStore('identity: authorization code with PKCE and the login page', (platform) => {
  let serverSecret = '';
  let bobId = '';

  before(async () => {
    const { ctx, clock } = platform();
    await registerClient(ctx.store, clock, { clientId: 'web-app', name: 'Air quality explorer', isPublic: true, redirectUris: [WEB, 'http://app.example/signed-out'] });
    ({ secret: serverSecret } = await registerClient(ctx.store, clock, { clientId: 'server-app', redirectUris: [SERVER] }));
    ({ id: bobId } = await registerUser(ctx.store, clock, { username: 'bob', email: 'bob@example.org', password: 'bob-password-1', roles: [{ role: 'experimenter', experiment: null }] }));
  });

  const { verifier, challenge } = pkce();
  const authorizeUrl = (params: Record<string, string> = {}) => `${OIDC}/auth?${new URLSearchParams({
    response_type: 'code', client_id: 'web-app', redirect_uri: WEB, scope: 'openid', state: 'st-1', nonce: 'n-1', code_challenge: challenge, code_challenge_method: 'S256', ...params,
  })}`;
  const openForm = async (params: Record<string, string> = {}) => {
    const page = await platform().app.inject({ method: 'GET', url: authorizeUrl(params) });
    assert.equal(page.statusCode, 200, page.body);
    return loginFormState(page);
  };
  const submit = (state: { request: string; cookie: string }, form: Record<string, string>) =>
    formPost(platform().app, `${OIDC}/auth`, { request: state.request, ...form }, { cookie: state.cookie });
  const redirectParams = (res: LightMyRequestResponse) => {
    const url = new URL(res.headers.location as string);
    return { base: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
  };
  const signIn = async (params: Record<string, string> = {}) => {
    const res = await submit(await openForm(params), { username: 'bob', password: 'bob-password-1' });
    assert.equal(res.statusCode, 303, res.body);
    return redirectParams(res).params.code as string;
  };
  const exchange = (code: string, form: Record<string, string> = {}, auth?: string) =>
    tokenRequest(platform().app, { grant_type: 'authorization_code', code, redirect_uri: WEB, code_verifier: verifier, client_id: 'web-app', ...form }, auth);

  it('shows an accessible login form with strict security headers', async () => {
    const res = await platform().app.inject({ method: 'GET', url: authorizeUrl() });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' http:\/\/app\.example/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.match(res.headers['set-cookie'] as string, /^oc_login=[A-Za-z0-9_-]{43}; Path=\/auth\/realms\/opencity\/protocol\/openid-connect\/auth; .*HttpOnly; SameSite=Lax/);
    assert.match(res.body, /<html lang="en">/);
    assert.match(res.body, /<label for="username">/);
    assert.match(res.body, /<input id="username" name="username" type="text" autocomplete="username"/);
    assert.match(res.body, /<label for="password">/);
    assert.match(res.body, /autocomplete="current-password"/);
    assert.match(res.body, /Air quality explorer/);
    assert.doesNotMatch(res.body, /<script/);
  });

  it('lets the observatory (the bootstrap public client) sign in at PUBLIC_URL/', async () => {
    const page = await platform().app.inject({ method: 'GET', url: authorizeUrl({ client_id: 'opencity-observatory', redirect_uri: 'http://127.0.0.1:8080/' }) });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /OpenCity observatory/);
    const res = await submit(loginFormState(page), { username: 'bob', password: 'bob-password-1' });
    assert.equal(res.statusCode, 303);
    const code = redirectParams(res).params.code as string;
    const tokens = await tokenRequest(platform().app, { grant_type: 'authorization_code', code, redirect_uri: 'http://127.0.0.1:8080/', code_verifier: verifier, client_id: 'opencity-observatory' });
    assert.equal(tokens.statusCode, 200);
    assert.equal(decodePayload(tokens.json().access_token).azp, 'opencity-observatory');
  });

  it('explains an unknown client or an unregistered redirect URI on a page, never redirecting', async () => {
    const cases: Array<Record<string, string>> = [{ client_id: 'nobody' }, { redirect_uri: 'http://evil.example/callback' }, { redirect_uri: `${WEB}/extra` }, { client_id: '' }];
    for (const params of cases) {
      const res = await platform().app.inject({ method: 'GET', url: authorizeUrl(params) });
      assert.equal(res.statusCode, 400, JSON.stringify(params));
      assert.equal(res.headers.location, undefined);
      assert.match(res.headers['content-type'] as string, /^text\/html/);
      assert.match(res.body, /Cannot sign in/);
    }
  });

  it('sends protocol errors back to the client with state and iss', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge: '' }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ prompt: 'none' }, 'login_required'],
    ];
    for (const [params, error] of cases) {
      const res = await platform().app.inject({ method: 'GET', url: authorizeUrl(params) });
      assert.equal(res.statusCode, 302, JSON.stringify(params));
      const back = redirectParams(res);
      assert.equal(back.base, WEB);
      assert.equal(back.params.error, error);
      assert.equal(back.params.state, 'st-1');
      assert.equal(back.params.iss, ISSUER);
    }
  });

  it('refuses repeated query parameters with a page', async () => {
    const res = await platform().app.inject({ method: 'GET', url: `${authorizeUrl()}&state=again` });
    assert.equal(res.statusCode, 400);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
  });

  it('shows the same visible error for a wrong password and an unknown user', async () => {
    const state = await openForm();
    for (const form of [{ username: 'bob', password: 'nope' }, { username: 'nobody', password: 'nope' }]) {
      const res = await submit(state, form);
      assert.equal(res.statusCode, 401);
      assert.match(res.body, /<p class="error" id="login-error" role="alert">Invalid user name or password\.<\/p>/);
      assert.match(res.body, new RegExp(`value="${form.username}"`));
      assert.match(res.body, /aria-invalid="true"/);
    }
  });

  it('refuses a form posted without the browser cookie, tampered with, or too old', async () => {
    const state = await openForm();
    const noCookie = await formPost(platform().app, `${OIDC}/auth`, { request: state.request, username: 'bob', password: 'bob-password-1' });
    assert.equal(noCookie.statusCode, 400);
    assert.match(noCookie.body, /cookie/);
    const otherCookie = await submit({ ...state, cookie: `oc_login=${'A'.repeat(43)}` }, { username: 'bob', password: 'bob-password-1' });
    assert.equal(otherCookie.statusCode, 400);
    const tampered = await submit({ ...state, request: `${state.request.slice(0, -4)}AAAA` }, { username: 'bob', password: 'bob-password-1' });
    assert.equal(tampered.statusCode, 400);
    assert.match(tampered.body, /not valid/);
    platform().clock.advance(11 * 60_000);
    const expired = await submit(state, { username: 'bob', password: 'bob-password-1' });
    assert.equal(expired.statusCode, 400);
    assert.match(expired.body, /expired/);
  });

  it('sends a cancelled sign-in back as access_denied', async () => {
    const res = await submit(await openForm(), { cancel: '1' });
    assert.equal(res.statusCode, 303);
    const back = redirectParams(res);
    assert.deepEqual([back.params.error, back.params.state], ['access_denied', 'st-1']);
  });

  it('signs in, redirects with a code, and exchanges it (public client, PKCE) for tokens', async () => {
    const res = await submit(await openForm(), { username: 'bob', password: 'bob-password-1' });
    assert.equal(res.statusCode, 303);
    const back = redirectParams(res);
    assert.equal(back.base, WEB);
    assert.equal(back.params.state, 'st-1');
    assert.equal(back.params.iss, ISSUER);
    assert.match(back.params.code as string, /^[A-Za-z0-9_-]{43}$/);

    const tokens = await exchange(back.params.code as string);
    assert.equal(tokens.statusCode, 200, tokens.body);
    const body = tokens.json();
    assert.equal(body.scope, 'openid profile email');
    assert.equal(typeof body.refresh_token, 'string');
    const now = new Date(platform().clock.now());
    const access = await verifyWithJwks(platform().app, body.access_token, { currentDate: now });
    assert.equal(access.sub, bobId);
    assert.equal(access.azp, 'web-app');
    assert.deepEqual(access.realm_access, { roles: ['experimenter'] });
    const id = await verifyWithJwks(platform().app, body.id_token, { audience: 'web-app', currentDate: now });
    assert.equal(id.nonce, 'n-1');
    assert.equal(id.sub, bobId);
    assert.equal(id.preferred_username, 'bob');

    // The public client refreshes with its client_id alone.
    const refreshed = await tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: 'web-app' });
    assert.equal(refreshed.statusCode, 200);
  });

  it('redeems a code once; a second redemption also ends the session it started', async () => {
    const code = await signIn();
    const first = await exchange(code);
    assert.equal(first.statusCode, 200);
    const again = await exchange(code);
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error, 'invalid_grant');
    const refreshed = await tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: first.json().refresh_token, client_id: 'web-app' });
    assert.equal(refreshed.statusCode, 400);
  });

  it('refuses a wrong verifier, a missing verifier, another redirect URI, another client and an old code', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_verifier: 'x'.repeat(43) }, 'PKCE verification failed'],
      [{ code_verifier: '' }, 'PKCE code verifier not specified'],
      [{ redirect_uri: 'http://app.example/signed-out' }, 'Incorrect redirect_uri'],
    ];
    for (const [form, description] of cases) {
      const res = await exchange(await signIn(), form);
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { error: 'invalid_grant', error_description: description });
    }
    const stolen = await exchange(await signIn(), { client_id: 'server-app' }, basic('server-app', serverSecret));
    assert.equal(stolen.statusCode, 400);
    assert.equal(stolen.json().error_description, 'Code was issued to another client');
    const code = await signIn();
    platform().clock.advance(61_000);
    const old = await exchange(code);
    assert.deepEqual(old.json(), { error: 'invalid_grant', error_description: 'Code expired' });
    assert.deepEqual((await exchange('no-such-code')).json(), { error: 'invalid_grant', error_description: 'Code not valid' });
  });

  it('requires a confidential client to authenticate when it exchanges its code', async () => {
    const state = await openForm({ client_id: 'server-app', redirect_uri: SERVER });
    const res = await submit(state, { username: 'bob', password: 'bob-password-1' });
    const code = redirectParams(res).params.code as string;
    const anonymous = await exchange(code, { client_id: 'server-app', redirect_uri: SERVER });
    assert.equal(anonymous.statusCode, 401);
    assert.equal(anonymous.json().error, 'invalid_client');
    const state2 = await openForm({ client_id: 'server-app', redirect_uri: SERVER });
    const code2 = redirectParams(await submit(state2, { username: 'bob', password: 'bob-password-1' })).params.code as string;
    const ok = await tokenRequest(platform().app, { grant_type: 'authorization_code', code: code2, redirect_uri: SERVER, code_verifier: verifier }, basic('server-app', serverSecret));
    assert.equal(ok.statusCode, 200);
    assert.equal(decodePayload(ok.json().access_token).azp, 'server-app');
  });

  it('answers userinfo for a valid access token and refuses others with invalid_token', async () => {
    const body = (await exchange(await signIn())).json();
    const res = await platform().app.inject({ method: 'GET', url: `${OIDC}/userinfo`, headers: bearer(body.access_token) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { sub: bobId, preferred_username: 'bob', email: 'bob@example.org' });
    const post = await platform().app.inject({ method: 'POST', url: `${OIDC}/userinfo`, headers: bearer(body.access_token) });
    assert.equal(post.statusCode, 200);

    const none = await platform().app.inject({ method: 'GET', url: `${OIDC}/userinfo` });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error, 'invalid_token');
    assert.match(none.headers['www-authenticate'] as string, /^Bearer realm="opencity"/);
    const forged = await platform().app.inject({ method: 'GET', url: `${OIDC}/userinfo`, headers: bearer(`${body.access_token.slice(0, -4)}AAAA`) });
    assert.equal(forged.statusCode, 401);
    assert.match(forged.headers['www-authenticate'] as string, /error="invalid_token"/);
    platform().clock.advance(301_000);
    const expired = await platform().app.inject({ method: 'GET', url: `${OIDC}/userinfo`, headers: bearer(body.access_token) });
    assert.equal(expired.statusCode, 401);
    assert.equal(expired.json().error_description, 'The access token expired');
  });

  it('signs out a browser with an ID token hint: the session ends, the browser returns to a registered address', async () => {
    const body = (await exchange(await signIn())).json();
    const res = await platform().app.inject({
      method: 'GET',
      url: `${OIDC}/logout?${new URLSearchParams({ id_token_hint: body.id_token, post_logout_redirect_uri: 'http://app.example/signed-out', state: 'bye' })}`,
    });
    assert.equal(res.statusCode, 302);
    assert.equal(res.headers.location, 'http://app.example/signed-out?state=bye');
    const refreshed = await tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: 'web-app' });
    assert.equal(refreshed.statusCode, 400);

    const unregistered = await platform().app.inject({ method: 'GET', url: `${OIDC}/logout?${new URLSearchParams({ id_token_hint: body.id_token, post_logout_redirect_uri: 'http://evil.example/' })}` });
    assert.equal(unregistered.statusCode, 400);
    assert.equal(unregistered.headers.location, undefined);
    const bad = await platform().app.inject({ method: 'GET', url: `${OIDC}/logout?id_token_hint=${body.access_token}` });
    assert.equal(bad.statusCode, 400, 'an access token is not an ID token hint');
    const plain = await platform().app.inject({ method: 'GET', url: `${OIDC}/logout` });
    assert.equal(plain.statusCode, 200);
    assert.match(plain.body, /You have signed out/);
  });

  it('ends a session by refresh token (logout 204, revocation 200)', async () => {
    const password = () => tokenRequest(platform().app, { grant_type: 'password', username: 'bob', password: 'bob-password-1' }, basic('server-app', serverSecret));
    const first = (await password()).json();
    const logout = await formPost(platform().app, `${OIDC}/logout`, { refresh_token: first.refresh_token }, { authorization: basic('server-app', serverSecret) });
    assert.equal(logout.statusCode, 204);
    const after = await tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: first.refresh_token }, basic('server-app', serverSecret));
    assert.equal(after.statusCode, 400);
    const unknown = await formPost(platform().app, `${OIDC}/logout`, { refresh_token: 'nope' }, { authorization: basic('server-app', serverSecret) });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, 'invalid_grant');
    const wrongClient = await formPost(platform().app, `${OIDC}/logout`, { refresh_token: 'nope' }, { authorization: basic('server-app', 'wrong') });
    assert.equal(wrongClient.statusCode, 401);

    const second = (await password()).json();
    const revoke = await formPost(platform().app, `${OIDC}/revoke`, { token: second.refresh_token, token_type_hint: 'refresh_token' }, { authorization: basic('server-app', serverSecret) });
    assert.equal(revoke.statusCode, 200);
    const afterRevoke = await tokenRequest(platform().app, { grant_type: 'refresh_token', refresh_token: second.refresh_token }, basic('server-app', serverSecret));
    assert.equal(afterRevoke.statusCode, 400);
    const revokeUnknown = await formPost(platform().app, `${OIDC}/revoke`, { token: 'whatever' }, { authorization: basic('server-app', serverSecret) });
    assert.equal(revokeUnknown.statusCode, 200);
    const revokeMissing = await formPost(platform().app, `${OIDC}/revoke`, {}, { authorization: basic('server-app', serverSecret) });
    assert.equal(revokeMissing.statusCode, 400);
    assert.equal(revokeMissing.json().error, 'invalid_request');
  });
});
