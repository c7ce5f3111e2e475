import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { jwtVerify } from 'jose';
import { callerFromClaims } from '../../src/identity/caller.js';
import { presentedClient } from '../../src/identity/client-auth.js';
import { signCompact } from '../../src/identity/jws.js';
import { accessTokenClaims, idTokenClaims, userInfo } from '../../src/domain/token-claims.js';

const user = { id: 'u-1', username: 'service-account-scenarios', email: null };

describe('access token claims (Keycloak layout)', () => {
  it('puts global roles in realm_access and tool permissions, unprefixed, in resource_access', () => {
    const claims = accessTokenClaims({
      user, clientId: 'scenarios', serviceAccountOf: 'scenarios', scope: 'profile email',
      assignments: [
        { role: 'experimenter', experiment: null },
        { role: 'accounts-permissions:readGlobalRoles', experiment: null },
        { role: 'accounts-permissions:readLocalRoles', experiment: null },
      ],
    });
    assert.deepEqual(claims, {
      typ: 'Bearer', azp: 'scenarios', clientId: 'scenarios', scope: 'profile email', preferred_username: 'service-account-scenarios',
      realm_access: { roles: ['experimenter'] },
      resource_access: { 'accounts-permissions': { roles: ['readGlobalRoles', 'readLocalRoles'] } },
    });
  });

  it('expands composites and canonical spellings', () => {
    const claims = accessTokenClaims({ user, clientId: 'x', scope: '', assignments: [{ role: 'administator', experiment: null }] });
    assert.deepEqual(claims.realm_access, { roles: ['administrator'] });
    assert.deepEqual(claims.resource_access, { scenarios: { roles: ['admin'] }, 'site-manager': { roles: ['role-admin'] } });
  });

  it('carries experiment-scoped roles in experiment_roles (and the role itself in realm_access)', () => {
    const claims = accessTokenClaims({
      user: { id: 'u-2', username: 'erin', email: 'erin@example.org' }, clientId: 'opencity-observatory', scope: 'openid', sessionId: 's-1',
      assignments: [{ role: 'participant', experiment: 'e-1' }, { role: 'participant', experiment: 'e-2' }],
    });
    assert.deepEqual(claims.realm_access, { roles: ['participant'] });
    assert.deepEqual(claims.experiment_roles, [{ role: 'participant', experiment: 'e-1' }, { role: 'participant', experiment: 'e-2' }]);
    assert.equal(claims.email, 'erin@example.org');
    assert.equal(claims.sid, 's-1');
    assert.equal(claims.clientId, undefined, 'a user token is not a service-account token');
  });

  it('round-trips through the caller the bearer plugin builds', () => {
    const claims = accessTokenClaims({
      user, clientId: 'scenarios', serviceAccountOf: 'scenarios', scope: 'profile email',
      assignments: [{ role: 'ocsite', experiment: null }, { role: 'scenarios:admin', experiment: null }, { role: 'participant', experiment: 'e-9' }],
    });
    const caller = callerFromClaims({ ...claims, sub: 'u-1', exp: 2_000_000_000 });
    assert.equal(caller.clientId, 'scenarios');
    assert.equal(caller.tool, 'scenarios');
    assert.deepEqual(caller.roles, ['ocsite', 'participant']);
    assert.deepEqual(caller.permissions, { scenarios: ['admin'] });
    assert.deepEqual(caller.experimentRoles, [{ role: 'participant', experiment: 'e-9' }]);
    assert.equal(caller.expiresAt, 2_000_000_000_000);
  });
});

describe('ID token claims and userinfo', () => {
  it('name the session, the sign-in time and the nonce', () => {
    assert.deepEqual(idTokenClaims({ user: { id: 'u', username: 'erin', email: 'e@x' }, clientId: 'web', sessionId: 's', authTime: 1700000000, nonce: 'n' }), {
      typ: 'ID', azp: 'web', auth_time: 1700000000, sid: 's', preferred_username: 'erin', nonce: 'n', email: 'e@x',
    });
    assert.deepEqual(userInfo({ id: 'u', username: 'erin', email: null }), { sub: 'u', preferred_username: 'erin' });
  });
});

describe('JWS signing', () => {
  it('produces ES256 compact tokens that jose verifies', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const token = signCompact({ alg: 'ES256', kid: 'k', typ: 'JWT' }, { sub: 'x', exp: 4_000_000_000 }, privateKey);
    const { payload, protectedHeader } = await jwtVerify(token, publicKey);
    assert.equal(payload.sub, 'x');
    assert.deepEqual(protectedHeader, { alg: 'ES256', kid: 'k', typ: 'JWT' });
  });

  it('refuses an algorithm it does not know', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    assert.throws(() => signCompact({ alg: 'HS256', kid: 'k', typ: 'JWT' }, {}, privateKey), /unsupported/);
  });
});

describe('client authentication parsing (RFC 6749 §2.3.1)', () => {
  const basicOf = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;

  it('reads HTTP Basic, form-decoding the id and secret', () => {
    assert.deepEqual(presentedClient(basicOf('my%20tool:s%2Bcret'), {}), { id: 'my tool', secret: 's+cret', viaBasic: true });
    assert.deepEqual(presentedClient(basicOf('tool:a+b'), {}), { id: 'tool', secret: 'a+b', viaBasic: true });
  });

  it('reads the form, and a public client naming itself', () => {
    assert.deepEqual(presentedClient(undefined, { client_id: 't', client_secret: 's' }), { id: 't', secret: 's', viaBasic: false });
    assert.deepEqual(presentedClient(undefined, { client_id: 'web' }), { id: 'web', secret: undefined, viaBasic: false });
    assert.equal(presentedClient(undefined, {}), undefined);
    assert.equal(presentedClient('Bearer xyz', {}), undefined);
  });

  it('refuses malformed Basic credentials and two methods at once', () => {
    assert.throws(() => presentedClient(basicOf('no-colon'), {}), /Malformed/);
    assert.throws(() => presentedClient(basicOf('%E0%A4%A:x'), {}), /Malformed/);
    assert.throws(() => presentedClient(basicOf(':secret'), {}), /Malformed/);
    assert.throws(() => presentedClient(basicOf('a:s'), { client_id: 'b' }), /differs/);
    assert.throws(() => presentedClient(basicOf('a:s'), { client_secret: 's' }), /one client authentication method/);
  });
});
