import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { SignJWT, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { signToken } from '../../src/identity/tokens.js';
import { bearer, describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { BASE, assetBody, create, entityUrl, read, remove, timeInstant, update, writeHeaders } from '../helpers/federation.js';
import { adminToken, call, toolToken } from '../helpers/permissions.js';
import { storeDigest } from '../helpers/hardening-fuzz.js';

/**
 * Attacks: forged and misused tokens, a site reaching for another site's
 * assets, a tool reading another tool's permissions, secrets leaking after
 * creation, request floods (429 with Retry-After), the page's security headers.
 */

const TOKEN_URL = '/auth/realms/opencity/protocol/openid-connect/token';
const ASSET = 'urn:oc:entity:santander:attack:target:1';
const REGISTERED = new Set(['iss', 'sub', 'aud', 'iat', 'exp', 'jti', 'nbf']);
const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

function claimsOf(token: string): { claims: Record<string, unknown>; sub: string; aud: string | string[] } {
  const all = decodeJwt(token) as Record<string, unknown>;
  const claims = Object.fromEntries(Object.entries(all).filter(([k]) => !REGISTERED.has(k)));
  return { claims, sub: all.sub as string, aud: all.aud as string | string[] };
}

async function asUnauthorized(p: TestPlatform, token: string, why: string): Promise<void> {
  const attempts = [
    () => create(p, token, assetBody('urn:oc:entity:santander:attack:forged:1')),
    () => read(p, token, ASSET),
    () => call(p, { method: 'GET', url: '/users?offset=0&count=5', token }),
    () => p.app.inject({ method: 'GET', url: `/datasource/${encodeURIComponent(ASSET)}/readings`, headers: bearer(token) }),
    () => p.app.inject({ method: 'GET', url: '/discovery/v0/assets', headers: bearer(token) }),
  ];
  for (const attempt of attempts) {
    const res = await attempt();
    assert.equal(res.statusCode, 401, `${why}: ${res.statusCode} ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/json/);
  }
}

describeEachStore('attacks on tokens, sites, tools and secrets', (platform) => {
  let site = '';
  let otherSite = '';
  let admin = '';

  before(async () => {
    const p = platform();
    site = await p.siteToken('santander');
    otherSite = await p.siteToken('valencia', { latitude: 39.47, longitude: -0.376 });
    admin = await adminToken(p);
    assert.equal((await create(p, site, assetBody(ASSET))).statusCode, 201);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const { claims, sub, aud } = claimsOf(site);
    const now = Math.floor(platform().clock.now() / 1000);
    const unsigned = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ ...claims, sub, aud, iss: platform().ctx.tokens.issuer, iat: now, exp: now + 300 })}.`;
    await asUnauthorized(platform(), unsigned, 'alg none');
    // The same claims with a symmetric algorithm and an empty key.
    const hs = `${b64url({ alg: 'HS256', typ: 'JWT', kid: decodeProtectedHeader(site).kid })}.${b64url({ ...claims, sub, aud, iss: platform().ctx.tokens.issuer, iat: now, exp: now + 300 })}.x`;
    await asUnauthorized(platform(), hs, 'HS256');
  });

  it('refuses a token signed with another key under the platform key id', async () => {
    const { claims, sub, aud } = claimsOf(site);
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(platform().clock.now() / 1000);
    const forged = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'ES256', kid: decodeProtectedHeader(site).kid as string, typ: 'JWT' })
      .setIssuer(platform().ctx.tokens.issuer).setSubject(sub).setAudience(aud).setIssuedAt(now).setExpirationTime(now + 300).sign(privateKey);
    await asUnauthorized(platform(), forged, 'wrong signature');
    // A valid token whose payload was edited (role added) after signing.
    const [h, , s] = site.split('.');
    const edited = `${h}.${b64url({ ...decodeJwt(site), realm_access: { roles: ['ocsite', 'administrator'] } })}.${s}`;
    await asUnauthorized(platform(), edited, 'edited payload');
  });

  it('refuses an expired token and a token of another issuer', async () => {
    const p = platform();
    const { claims, sub, aud } = claimsOf(site);
    await asUnauthorized(p, signToken(p.ctx.tokens, claims, sub, aud, -60), 'expired');
    await asUnauthorized(p, signToken({ ...p.ctx.tokens, issuer: 'http://127.0.0.1:9/auth/realms/other' }, claims, sub, aud, 300), 'other issuer');
  });

  it('refuses a token for another audience when the platform names its own', async () => {
    // This suite runs with AUTH_AUDIENCE=account (the audience every platform token carries).
    const p = platform();
    const { claims, sub } = claimsOf(site);
    await asUnauthorized(p, signToken(p.ctx.tokens, claims, sub, ['some-other-api'], 300), 'other audience');
    assert.equal((await read(p, site, ASSET)).statusCode, 200);
  });

  it('refuses a user token where a site client is required', async () => {
    const p = platform();
    const { token } = await p.userToken('attacker', ['ocsite']);
    const res = await create(p, token, assetBody('urn:oc:entity:santander:attack:user:1'));
    assert.equal(res.statusCode, 400);
    assert.match(res.json().description, /not a site client|not a client/i);
    assert.equal((await update(p, token, ASSET, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1 } })).statusCode, 400);
    assert.equal((await remove(p, token, ASSET)).statusCode, 400);
    // A client that is not a site, even holding the role.
    const tool = await p.clientToken('not-a-site', ['ocsite']);
    assert.equal((await create(p, tool, assetBody('urn:oc:entity:santander:attack:tool:1'))).statusCode, 400);
    // A site client without the role.
    const roleless = await p.clientToken('ocsite-santander-x', []);
    assert.equal((await create(p, roleless, assetBody('urn:oc:entity:santander:attack:roleless:1'))).statusCode, 403);
  });

  it("keeps a site out of another site's assets on every federation route", async () => {
    const p = platform();
    const before = await storeDigest(p.ctx.store);
    const attempts = {
      create: await create(p, otherSite, assetBody('urn:oc:entity:santander:attack:planted:1')),
      createSame: await create(p, otherSite, assetBody(ASSET)),
      update: await update(p, otherSite, ASSET, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: -99 } }),
      updateTyped: await update(p, otherSite, ASSET, { TimeInstant: timeInstant(), temperature: { type: 'Number', value: -99 } }, {}, '?type=urn:oc:entityType:iotdevice'),
      delete: await remove(p, otherSite, ASSET),
      read: await read(p, otherSite, ASSET),
      fiware: await p.app.inject({ method: 'POST', url: BASE, headers: writeHeaders(otherSite, { 'fiware-service': 'opencity' }), payload: JSON.stringify(assetBody('urn:oc:entity:santander:attack:planted:2')) }),
      encoded: await p.app.inject({ method: 'DELETE', url: `${BASE}/${encodeURIComponent(ASSET).replace(/%3A/g, '%3a')}`, headers: bearer(otherSite) }),
      traversal: await p.app.inject({ method: 'DELETE', url: entityUrl(`urn:oc:entity:valencia:../santander:attack:target:1`), headers: bearer(otherSite) }),
    };
    for (const [name, res] of Object.entries(attempts)) {
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${name}: ${res.statusCode} ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
    const after = await storeDigest(p.ctx.store);
    assert.equal(after.digest, before.digest, 'another site changed nothing');
    assert.equal((await read(p, site, ASSET)).json().temperature.value, 21.5);
  });

  it("keeps a tool from reading or editing another tool's permissions", async () => {
    const p = platform();
    const { userId } = await p.userToken('permissions-target', ['tool-b:secret-perm']);
    const toolA = await toolToken(p, 'tool-a', ['readGlobalRoles', 'readLocalRoles', 'editGlobalRoles', 'editLocalRoles']);
    const own = await call(p, { method: 'GET', url: `/users/${userId}/roles/tool-a:x`, token: toolA });
    assert.equal(own.statusCode, 404, own.body);
    const reads = [
      await call(p, { method: 'GET', url: `/users/${userId}/roles/tool-b:secret-perm`, token: toolA }),
      await call(p, { method: 'POST', url: `/users/${userId}/roles`, token: toolA, body: { role: 'tool-b:granted' } }),
      await call(p, { method: 'DELETE', url: `/users/${userId}/roles/tool-b:secret-perm`, token: toolA }),
    ];
    for (const res of reads) assert.equal(res.statusCode, 403, res.body);
    const list = await call(p, { method: 'GET', url: `/users/${userId}/roles`, token: toolA });
    assert.ok(!list.body.includes('tool-b'), `listing shows another tool's roles: ${list.body}`);
    // Without accounts-permissions rights a tool reads nothing at all.
    const bare = await p.clientToken('tool-c', []);
    assert.equal((await call(p, { method: 'GET', url: `/users/${userId}/roles`, token: bare })).statusCode, 403);
  });

  it('shows a client secret once and never again, nor stores it in clear', async () => {
    const p = platform();
    const created = await call(p, { method: 'POST', url: '/clients', token: admin, body: { clientId: 'secret-keeper', redirectUri: 'https://example.org/cb' } });
    assert.equal(created.statusCode, 201, created.body);
    const { secret, service_account_id: account } = created.json() as { secret: string; service_account_id: string };
    assert.ok(secret.length >= 32);
    const grant = await p.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=secret-keeper&client_secret=${secret}` });
    assert.equal(grant.statusCode, 200);
    const later = [
      grant,
      await call(p, { method: 'GET', url: '/clients/secret-keeper/redirecturis', token: admin }),
      await call(p, { method: 'GET', url: `/users/${account}/roles`, token: admin }),
      await call(p, { method: 'GET', url: '/users?offset=0&count=100', token: admin }),
      await call(p, { method: 'POST', url: '/clients', token: admin, body: { clientId: 'secret-keeper' } }),
      await p.app.inject({ method: 'GET', url: '/auth/realms/opencity/protocol/openid-connect/userinfo', headers: bearer(grant.json().access_token) }),
      await p.app.inject({ method: 'GET', url: '/metrics' }),
    ];
    for (const res of later) assert.ok(!res.body.includes(secret), `secret shown again: ${res.body.slice(0, 200)}`);
    const dump = JSON.stringify(await p.ctx.store.read.selectFrom('clients').selectAll().execute(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    assert.ok(!dump.includes(secret), 'the secret is stored in clear');
  });

  it('sends the security headers with the page', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /object-src 'none'/);
    assert.doesNotMatch(csp, /script-src[^;]*'unsafe-inline'/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
  });
}, { authAudience: 'account' });

describeEachStore('rate limits per client', (platform) => {
  it('limits token requests per client with 429 and Retry-After, other clients unaffected', async () => {
    const p = platform();
    const ask = (client: string) => p.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `grant_type=client_credentials&client_id=${client}&client_secret=wrong` });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await ask('greedy')).statusCode);
    assert.deepEqual(statuses, [401, 401, 401, 429]);
    const limited = await ask('greedy');
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1, `Retry-After: ${limited.headers['retry-after']}`);
    assert.equal(limited.json().error, 'TooManyRequests');
    assert.equal((await ask('patient')).statusCode, 401);
  });

  it('limits federation writes per client with 429 and Retry-After, reads and other sites unaffected', async () => {
    const p = platform();
    const busy = await p.siteToken('busy');
    const calm = await p.siteToken('calm');
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await create(p, busy, assetBody(`urn:oc:entity:busy:flood:${i}`))).statusCode);
    assert.deepEqual(statuses, [201, 201, 201, 429]);
    const limited = await update(p, busy, 'urn:oc:entity:busy:flood:0', { TimeInstant: timeInstant(), temperature: { type: 'Number', value: 1 } });
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['content-type'], 'application/json');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.json().error, 'TooManyRequests');
    // The refused write left nothing behind; reads still work; another site still writes.
    assert.equal((await read(p, busy, 'urn:oc:entity:busy:flood:3')).statusCode, 404);
    assert.equal((await read(p, busy, 'urn:oc:entity:busy:flood:0')).statusCode, 200);
    assert.equal((await create(p, calm, assetBody('urn:oc:entity:calm:quiet:1'))).statusCode, 201);
  });
}, { tokenRateLimit: 3, writeRateLimit: 3 });
