import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { adminToken, call, errorOf, toolToken } from '../helpers/permissions.js';

/** The payload of a JWT (what a client reading its token sees). */
const claimsOf = (token: string): Record<string, any> => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8'));

const roles = (p: TestPlatform, userId: string, token: string) => call(p, { method: 'GET', url: `/users/${userId}/roles`, token });
const grant = (p: TestPlatform, userId: string, token: string, body: unknown) => call(p, { method: 'POST', url: `/users/${userId}/roles`, token, body });
const holds = (p: TestPlatform, userId: string, token: string, role: string, query = '') =>
  call(p, { method: 'GET', url: `/users/${userId}/roles/${encodeURIComponent(role)}${query}`, token });
const revoke = (p: TestPlatform, userId: string, token: string, role: string, query = '') =>
  call(p, { method: 'DELETE', url: `/users/${userId}/roles/${encodeURIComponent(role)}${query}`, token });

const ALL_ROLE_PERMISSIONS = ['readGlobalRoles', 'readLocalRoles', 'editGlobalRoles', 'editLocalRoles'] as const;

describeEachStore('permissions: roles', (platform) => {
  const scenarios = () => toolToken(platform(), 'scenarios', [...ALL_ROLE_PERMISSIONS]);
  const siteManager = () => toolToken(platform(), 'site-manager', [...ALL_ROLE_PERMISSIONS]);

  it('refuses a call without a token with 401 {error}', async () => {
    const p = platform();
    const { userId } = await p.userToken('anon-target');
    for (const res of [
      await roles(p, userId, ''),
      await call(p, { method: 'POST', url: `/users/${userId}/roles`, body: { role: 'experimenter' } }),
      await call(p, { method: 'GET', url: `/users/${userId}/roles/experimenter` }),
      await call(p, { method: 'DELETE', url: `/users/${userId}/roles/experimenter` }),
    ]) {
      assert.equal(res.statusCode, 401);
      assert.match(errorOf(res), /token/i);
      assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    }
  });

  it('refuses an invalid token with 401 {error}', async () => {
    const p = platform();
    const { userId } = await p.userToken('anon-target');
    const res = await roles(p, userId, 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
    assert.equal(res.statusCode, 401);
    errorOf(res);
  });

  it('refuses a user\'s token with 403, even one holding the permissions: only clients\' service accounts may call', async () => {
    const p = platform();
    const { token, userId } = await p.userToken('mallory', ALL_ROLE_PERMISSIONS.map((x) => `accounts-permissions:${x}`));
    assert.ok(claimsOf(token).resource_access['accounts-permissions'].roles.includes('readGlobalRoles'));
    for (const res of [
      await roles(p, userId, token),
      await grant(p, userId, token, { role: 'experimenter' }),
      await holds(p, userId, token, 'experimenter'),
      await revoke(p, userId, token, 'experimenter'),
    ]) {
      assert.equal(res.statusCode, 403);
      assert.match(errorOf(res), /service accounts of clients/);
    }
  });

  it('refuses a client without any of the operation\'s permissions with 403', async () => {
    const p = platform();
    const { userId } = await p.userToken('target-1');
    const reader = await toolToken(p, 'reader-only', ['readGlobalRoles']);
    const nobody = await p.clientToken('no-permissions');
    assert.equal((await roles(p, userId, nobody)).statusCode, 403);
    const res = await grant(p, userId, reader, { role: 'experimenter' });
    assert.equal(res.statusCode, 403);
    assert.match(errorOf(res), /accounts-permissions:editGlobalRoles or accounts-permissions:editLocalRoles/);
    assert.equal((await revoke(p, userId, reader, 'experimenter')).statusCode, 403);
    assert.equal((await holds(p, userId, await toolToken(p, 'editor-only', ['editGlobalRoles']), 'experimenter')).statusCode, 403);
  });

  it('takes identity and permissions from the token only: spoofed headers change nothing', async () => {
    const p = platform();
    const { userId } = await p.userToken('target-2');
    const weak = await toolToken(p, 'weak-tool', ['editLocalRoles']);
    const res = await grant(p, userId, weak, { role: 'administrator' });
    assert.equal(res.statusCode, 403);
    const spoofed = await call(p, {
      method: 'POST', url: `/users/${userId}/roles`, token: weak, body: { role: 'administrator' },
      headers: { 'x-clientid': 'opencity-admin', 'x-client-roles': 'editGlobalRoles', 'x-sub': 'someone' },
    });
    assert.equal(spoofed.statusCode, 403);
    assert.deepEqual((await roles(p, userId, await adminToken(p))).json(), []);
  });

  it('lists global roles with composites expanded, only the caller\'s own permissions, and experiment roles as {role, experiment}', async () => {
    const p = platform();
    const { userId } = await p.userToken('carol', [
      'administrator', 'experimenter', { role: 'participant', experiment: 'exp-1' },
      'scenarios:moderator', 'site-manager:dictionary-admin', 'other-tool:secret',
    ]);
    const seenByScenarios = await roles(p, userId, await scenarios());
    assert.equal(seenByScenarios.statusCode, 200);
    assert.deepEqual(seenByScenarios.json(), [
      { role: 'administrator' }, { role: 'experimenter' }, { role: 'participant', experiment: 'exp-1' },
      { role: 'scenarios:admin' }, { role: 'scenarios:moderator' },
    ]);
    assert.deepEqual((await roles(p, userId, await siteManager())).json(), [
      { role: 'administrator' }, { role: 'experimenter' }, { role: 'participant', experiment: 'exp-1' },
      { role: 'site-manager:dictionary-admin' }, { role: 'site-manager:role-admin' },
    ]);
    // The administration client is a tool like any other: it sees no tool's permissions.
    assert.deepEqual((await roles(p, userId, await adminToken(p))).json(), [
      { role: 'administrator' }, { role: 'experimenter' }, { role: 'participant', experiment: 'exp-1' },
    ]);
  });

  it('shows only the permissions\' part: readLocalRoles alone gives the own permissions, readGlobalRoles alone the global roles', async () => {
    const p = platform();
    const { userId } = await p.userToken('dave', ['experimenter', 'scenarios:moderator']);
    const localOnly = await toolToken(p, 'scenarios-local', ['readLocalRoles']);
    // A separate client whose tool name is scenarios would be the scenarios tool itself; this one reads its own.
    assert.deepEqual((await roles(p, userId, localOnly)).json(), []);
    const { userId: eve } = await p.userToken('eve', ['experimenter', 'scenarios-local:viewer']);
    assert.deepEqual((await roles(p, eve, localOnly)).json(), [{ role: 'scenarios-local:viewer' }]);
    const globalOnly = await toolToken(p, 'global-reader', ['readGlobalRoles']);
    assert.deepEqual((await roles(p, userId, globalOnly)).json(), [{ role: 'experimenter' }]);
    assert.equal((await holds(p, eve, localOnly, 'experimenter')).statusCode, 403);
    assert.equal((await holds(p, eve, localOnly, 'scenarios-local:viewer')).statusCode, 200);
    assert.equal((await holds(p, eve, globalOnly, 'global-reader:x')).statusCode, 403);
  });

  it('gives 200 [] for a user without visible roles and 404 {error} for an unknown user', async () => {
    const p = platform();
    const { userId } = await p.userToken('frank');
    const token = await scenarios();
    const empty = await roles(p, userId, token);
    assert.equal(empty.statusCode, 200);
    assert.deepEqual(empty.json(), []);
    const unknown = await roles(p, 'no-such-user', token);
    assert.equal(unknown.statusCode, 404);
    assert.match(errorOf(unknown), /no-such-user/);
  });

  it('follows the role-assignment state table: 201, 201 with no change, 200, and GET 404 once removed', async () => {
    const p = platform();
    const { userId } = await p.userToken('grace');
    const token = await adminToken(p);
    assert.equal((await holds(p, userId, token, 'experimenter')).statusCode, 404);

    const first = await grant(p, userId, token, { role: 'experimenter' });
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers.location, `/permissions/users/${userId}/roles/experimenter`);
    assert.deepEqual(first.json(), { role: 'experimenter' });
    assert.deepEqual((await roles(p, userId, token)).json(), [{ role: 'experimenter' }]);
    const held = await holds(p, userId, token, 'experimenter');
    assert.equal(held.statusCode, 200);
    assert.deepEqual(held.json(), { role: 'experimenter' });

    const again = await grant(p, userId, token, { role: 'experimenter' });
    assert.equal(again.statusCode, 201);
    assert.deepEqual((await roles(p, userId, token)).json(), [{ role: 'experimenter' }]);

    const removed = await revoke(p, userId, token, 'experimenter');
    assert.equal(removed.statusCode, 200);
    assert.equal(removed.body, '');
    assert.deepEqual((await roles(p, userId, token)).json(), []);
    const gone = await holds(p, userId, token, 'experimenter');
    assert.equal(gone.statusCode, 404);
    assert.match(errorOf(gone), /does not hold the role experimenter/);

    const removedAgain = await revoke(p, userId, token, 'experimenter');
    assert.equal(removedAgain.statusCode, 200);
  });

  it('refuses bad role bodies: 400 for a wrong shape, 404 for a malformed name, 404 for an unknown user', async () => {
    const p = platform();
    const { userId } = await p.userToken('heidi');
    const token = await adminToken(p);
    for (const body of [{}, { role: true }, { role: 5 }, { role: ['experimenter'] }, [], 'null', { role: 'experimenter', experiment: 7 }]) {
      const res = await grant(p, userId, token, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      errorOf(res);
    }
    const notJson = await grant(p, userId, token, '{"role":');
    assert.equal(notJson.statusCode, 400);
    errorOf(notJson);
    for (const role of ['1abc', 'a:b:c', 'has space', ':x', 'x:', '', 'é', 'a'.repeat(256)]) {
      const res = await grant(p, userId, token, { role });
      assert.equal(res.statusCode, 404, role);
      assert.equal(errorOf(res), 'The requested role does not adhere to the required format.');
    }
    const unknown = await grant(p, 'no-such-user', token, { role: 'experimenter' });
    assert.equal(unknown.statusCode, 404);
    assert.match(errorOf(unknown), /No user has the id no-such-user/);
    assert.deepEqual((await roles(p, userId, token)).json(), []);
  });

  it('demands an experiment id for participant (422) and keeps experiment assignments apart', async () => {
    const p = platform();
    const { userId } = await p.userToken('ivan');
    const token = await adminToken(p);
    for (const body of [{ role: 'participant' }, { role: 'participant', experiment: '' }]) {
      const res = await grant(p, userId, token, body);
      assert.equal(res.statusCode, 422);
      assert.equal(errorOf(res), 'An Experiment ID is required for the given role, but was not supplied.');
    }
    const bad = await grant(p, userId, token, { role: 'participant', experiment: 'has space' });
    assert.equal(bad.statusCode, 422);
    errorOf(bad);

    const a = await grant(p, userId, token, { role: 'participant', experiment: 'exp-a' });
    assert.equal(a.statusCode, 201);
    assert.equal(a.headers.location, `/permissions/users/${userId}/roles/participant?experiment=exp-a`);
    assert.deepEqual(a.json(), { role: 'participant', experiment: 'exp-a' });
    assert.equal((await grant(p, userId, token, { role: 'participant', experiment: 'exp-b' })).statusCode, 201);
    assert.deepEqual((await roles(p, userId, token)).json(), [
      { role: 'participant', experiment: 'exp-a' }, { role: 'participant', experiment: 'exp-b' },
    ]);

    assert.equal((await holds(p, userId, token, 'participant')).statusCode, 422);
    assert.equal((await holds(p, userId, token, 'participant', '?experiment=exp-a')).statusCode, 200);
    assert.equal((await holds(p, userId, token, 'participant', '?experiment=exp-c')).statusCode, 404);
    assert.equal((await revoke(p, userId, token, 'participant')).statusCode, 422);
    assert.equal((await revoke(p, userId, token, 'participant', '?experiment=exp-a')).statusCode, 200);
    assert.deepEqual((await roles(p, userId, token)).json(), [{ role: 'participant', experiment: 'exp-b' }]);

    // Other global roles may be scoped too; tool permissions may not.
    assert.equal((await grant(p, userId, token, { role: 'experimenter', experiment: 'exp-a' })).statusCode, 201);
    assert.equal((await holds(p, userId, token, 'experimenter')).statusCode, 404);
    assert.equal((await holds(p, userId, token, 'experimenter', '?experiment=exp-a')).statusCode, 200);
    const scopedTool = await grant(p, userId, await scenarios(), { role: 'scenarios:admin', experiment: 'exp-a' });
    assert.equal(scopedTool.statusCode, 422);
    errorOf(scopedTool);
  });

  it('accepts the spec\'s spellings: administator is administrator, site-manager is sitemanager', async () => {
    const p = platform();
    const { userId } = await p.userToken('judy');
    const token = await adminToken(p);
    const res = await grant(p, userId, token, { role: 'administator' });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers.location, `/permissions/users/${userId}/roles/administrator`);
    assert.equal((await grant(p, userId, token, { role: 'site-manager' })).statusCode, 201);
    assert.deepEqual((await roles(p, userId, token)).json(), [{ role: 'administrator' }, { role: 'sitemanager' }]);
    assert.equal((await holds(p, userId, token, 'administator')).statusCode, 200);
    assert.equal((await holds(p, userId, token, 'sitemanager')).statusCode, 200);
    assert.equal((await revoke(p, userId, token, 'site-manager')).statusCode, 200);
    assert.deepEqual((await roles(p, userId, token)).json(), [{ role: 'administrator' }]);
  });

  it('decides the edit permission by the role: global roles need editGlobalRoles, the own permissions editLocalRoles', async () => {
    const p = platform();
    const { userId } = await p.userToken('ken');
    const localEditor = await toolToken(p, 'local-editor', ['editLocalRoles', 'readLocalRoles']);
    const globalEditor = await toolToken(p, 'global-editor', ['editGlobalRoles']);
    const refused = await grant(p, userId, localEditor, { role: 'experimenter' });
    assert.equal(refused.statusCode, 403);
    assert.match(errorOf(refused), /accounts-permissions:editGlobalRoles/);
    assert.equal((await grant(p, userId, localEditor, { role: 'local-editor:curator' })).statusCode, 201);
    assert.equal((await grant(p, userId, globalEditor, { role: 'global-editor:curator' })).statusCode, 403);
    assert.equal((await grant(p, userId, globalEditor, { role: 'experimenter' })).statusCode, 201);
    assert.equal((await revoke(p, userId, localEditor, 'experimenter')).statusCode, 403);
    assert.deepEqual((await roles(p, userId, localEditor)).json(), [{ role: 'local-editor:curator' }]);
    assert.equal((await revoke(p, userId, localEditor, 'local-editor:curator')).statusCode, 200);
    assert.deepEqual((await roles(p, userId, localEditor)).json(), []);
  });

  it('keeps one tool out of another tool\'s permissions: it neither sees nor changes them (403)', async () => {
    const p = platform();
    const { userId } = await p.userToken('laura', ['scenarios:moderator']);
    const intruder = await siteManager();
    const owner = await scenarios();

    assert.deepEqual((await roles(p, userId, intruder)).json(), []);
    const read = await holds(p, userId, intruder, 'scenarios:moderator');
    assert.equal(read.statusCode, 403);
    assert.match(errorOf(read), /belongs to the tool scenarios/);
    assert.equal((await grant(p, userId, intruder, { role: 'scenarios:admin' })).statusCode, 403);
    assert.equal((await revoke(p, userId, intruder, 'scenarios:moderator')).statusCode, 403);
    // 403 comes before looking the user up: nothing is revealed about users either.
    assert.equal((await grant(p, 'no-such-user', intruder, { role: 'scenarios:admin' })).statusCode, 403);
    // Not even the administration client may touch a tool's permissions.
    assert.equal((await grant(p, userId, await adminToken(p), { role: 'scenarios:admin' })).statusCode, 403);

    assert.deepEqual((await roles(p, userId, owner)).json(), [{ role: 'scenarios:moderator' }]);
    assert.equal((await holds(p, userId, owner, 'scenarios:moderator')).statusCode, 200);
  });

  it('reports composite roles as held, and a role held only through a composite stays until the composite goes', async () => {
    const p = platform();
    const { userId } = await p.userToken('mike', ['administrator']);
    const token = await scenarios();
    assert.equal((await holds(p, userId, token, 'scenarios:admin')).statusCode, 200);
    assert.equal((await revoke(p, userId, token, 'scenarios:admin')).statusCode, 200);
    assert.equal((await holds(p, userId, token, 'scenarios:admin')).statusCode, 200);
    assert.equal((await revoke(p, userId, token, 'administrator')).statusCode, 200);
    assert.equal((await holds(p, userId, token, 'scenarios:admin')).statusCode, 404);
  });

  it('shows role changes in the next token of the user and of a client', async () => {
    const p = platform();
    const admin = await adminToken(p);
    const before = await p.userToken('nina');
    assert.ok(!claimsOf(before.token).realm_access.roles.includes('experimenter'));
    assert.equal((await grant(p, before.userId, admin, { role: 'experimenter' })).statusCode, 201);
    assert.ok(claimsOf((await p.userToken('nina')).token).realm_access.roles.includes('experimenter'));

    const clientBefore = await p.clientToken('partner-app');
    const serviceAccount = claimsOf(clientBefore).sub as string;
    assert.equal((await grant(p, serviceAccount, admin, { role: 'provider' })).statusCode, 201);
    assert.ok(claimsOf(await p.clientToken('partner-app')).realm_access.roles.includes('provider'));
    assert.equal((await revoke(p, serviceAccount, admin, 'provider')).statusCode, 200);
    assert.ok(!claimsOf(await p.clientToken('partner-app')).realm_access.roles.includes('provider'));
  });

  it('answers odd path values with 404, never 500', async () => {
    const p = platform();
    const token = await adminToken(p);
    for (const userId of ['%00', 'a%2Fb', encodeURIComponent('x'.repeat(1500)), '%E2%82%AC']) {
      const res = await roles(p, userId, token);
      assert.equal(res.statusCode, 404, userId);
      errorOf(res);
    }
    // Undecodable paths are refused by the router itself, before any route runs.
    for (const userId of ['%ED%A0%80', '%FF']) {
      const res = await roles(p, userId, token);
      assert.equal(res.statusCode, 400, userId);
      assert.equal(typeof res.json().error, 'string');
    }
    const { userId } = await p.userToken('oscar');
    const res = await holds(p, userId, token, 'x'.repeat(300));
    assert.equal(res.statusCode, 404);
    const route = await call(p, { method: 'GET', url: '/no/such/route', token });
    assert.equal(route.statusCode, 404);
    errorOf(route);
  });
});
