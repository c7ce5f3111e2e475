import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isAbsoluteUri, isRedirectUri, planNewClient, redirectUriSet } from '../../src/domain/client-registration.js';
import { AppError } from '../../src/domain/errors.js';
import { httpStatus } from '../../src/http/error-handler.js';
import {
  admitCaller, canSeeRole, holdsRole, requireRoleAccess, visibleRoles, type PermissionsCaller, type ToolGrant,
} from '../../src/domain/role-access.js';
import { parseExperiment, parseRoleName, requiresExperiment } from '../../src/domain/roles.js';
import { userPage } from '../../src/domain/user-paging.js';

/** The status an AppError thrown by `fn` carries. */
function statusOf(fn: () => unknown): number | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return httpStatus(error);
    throw error;
  }
}

const caller = (over: Partial<PermissionsCaller>): PermissionsCaller => ({ clientId: 'scenarios', tool: 'scenarios', permissions: {}, ...over });
const grantOf = (tool: string, ...granted: string[]): ToolGrant => ({ tool, granted: new Set(granted) });

describe('role names', () => {
  for (const name of ['experimenter', 'a', 'scenarios:admin', 'site-manager:role-admin', 'x_y-z:a_b-c', 'A1']) {
    it(`accepts ${name}`, () => assert.equal(statusOf(() => parseRoleName(name)), 'ok'));
  }
  for (const name of ['', '1abc', '-x', 'a:b:c', 'a:', ':a', 'has space', 'é', 'a'.repeat(256), 'a\u0000']) {
    it(`refuses ${JSON.stringify(name.slice(0, 20))} with 404`, () => assert.equal(statusOf(() => parseRoleName(name)), 404));
  }
  it('reads the spec\'s spellings as one role', () => {
    assert.equal(parseRoleName('administator'), 'administrator');
    assert.equal(parseRoleName('site-manager'), 'sitemanager');
    assert.equal(parseRoleName('site-manager:role-admin'), 'site-manager:role-admin');
  });
});

describe('experiments', () => {
  it('participant needs one (422), other roles do not', () => {
    assert.equal(requiresExperiment('participant'), true);
    assert.equal(statusOf(() => parseExperiment('participant', undefined)), 422);
    assert.equal(statusOf(() => parseExperiment('participant', '')), 422);
    assert.equal(parseExperiment('participant', 'exp-1'), 'exp-1');
    assert.equal(parseExperiment('experimenter', undefined), null);
    assert.equal(parseExperiment('experimenter', 'exp-1'), 'exp-1');
  });
  it('refuses malformed ids and scoped tool permissions (422)', () => {
    for (const id of ['a b', 'a:b', 'x'.repeat(129), 'a/b']) assert.equal(statusOf(() => parseExperiment('participant', id)), 422, id);
    assert.equal(statusOf(() => parseExperiment('scenarios:admin', 'exp-1')), 422);
  });
});

describe('who may call', () => {
  it('refuses a token that is not a client\'s service account (403)', () => {
    const user = caller({ clientId: undefined, tool: 'opencity-observatory', permissions: { 'accounts-permissions': ['readGlobalRoles'] } });
    assert.equal(statusOf(() => admitCaller(user, ['readGlobalRoles'])), 403);
  });
  it('admits a client holding any one of the listed permissions, and only then', () => {
    const c = caller({ permissions: { 'accounts-permissions': ['readLocalRoles'], scenarios: ['readGlobalRoles'] } });
    assert.equal(statusOf(() => admitCaller(c, ['readGlobalRoles', 'readLocalRoles'])), 'ok');
    assert.equal(statusOf(() => admitCaller(c, ['readGlobalRoles'])), 403);
    assert.deepEqual([...admitCaller(c, ['readLocalRoles']).granted], ['readLocalRoles']);
  });
  it('speaks for the tool the token names', () => {
    const c = caller({ clientId: 'site-manager', tool: 'site-manager', permissions: { 'accounts-permissions': ['readLocalRoles'] } });
    assert.equal(admitCaller(c, ['readLocalRoles']).tool, 'site-manager');
  });
});

describe('role access', () => {
  const full = grantOf('scenarios', 'readGlobalRoles', 'readLocalRoles', 'editGlobalRoles', 'editLocalRoles');
  it('lets a tool read and edit global roles and its own permissions', () => {
    for (const access of ['read', 'edit'] as const) {
      assert.equal(statusOf(() => requireRoleAccess(full, 'experimenter', access)), 'ok');
      assert.equal(statusOf(() => requireRoleAccess(full, 'scenarios:admin', access)), 'ok');
    }
  });
  it('never lets a tool read or edit another tool\'s permissions (403)', () => {
    for (const access of ['read', 'edit'] as const) {
      assert.equal(statusOf(() => requireRoleAccess(full, 'site-manager:role-admin', access)), 403);
      assert.equal(statusOf(() => requireRoleAccess(full, 'scenarios-x:admin', access)), 403);
    }
  });
  it('needs the global permission for global roles and the local one for the own permissions', () => {
    const local = grantOf('scenarios', 'readLocalRoles', 'editLocalRoles');
    const global = grantOf('scenarios', 'readGlobalRoles', 'editGlobalRoles');
    assert.equal(statusOf(() => requireRoleAccess(local, 'experimenter', 'edit')), 403);
    assert.equal(statusOf(() => requireRoleAccess(local, 'scenarios:admin', 'edit')), 'ok');
    assert.equal(statusOf(() => requireRoleAccess(global, 'scenarios:admin', 'read')), 403);
    assert.equal(statusOf(() => requireRoleAccess(global, 'experimenter', 'read')), 'ok');
    assert.equal(canSeeRole(local, 'experimenter'), false);
    assert.equal(canSeeRole(global, 'scenarios:admin'), false);
  });
});

describe('visible roles', () => {
  const assignments = [
    { role: 'scenarios:moderator', experiment: null }, { role: 'administator', experiment: null },
    { role: 'participant', experiment: 'exp-2' }, { role: 'participant', experiment: 'exp-1' },
    { role: 'site-manager:metrics', experiment: null }, { role: 'experimenter', experiment: null },
  ];
  it('expands composites, keeps the own permissions only, and sorts global roles first', () => {
    assert.deepEqual(visibleRoles(grantOf('scenarios', 'readGlobalRoles', 'readLocalRoles'), assignments), [
      { role: 'administrator', experiment: null }, { role: 'experimenter', experiment: null },
      { role: 'participant', experiment: 'exp-1' }, { role: 'participant', experiment: 'exp-2' },
      { role: 'scenarios:admin', experiment: null }, { role: 'scenarios:moderator', experiment: null },
    ]);
  });
  it('shows a composite\'s part once even when assigned directly too', () => {
    const roles = visibleRoles(grantOf('scenarios', 'readLocalRoles'), [{ role: 'administrator', experiment: null }, { role: 'scenarios:admin', experiment: null }]);
    assert.deepEqual(roles, [{ role: 'scenarios:admin', experiment: null }]);
  });
  it('counts composite parts as held, per experiment for scoped roles', () => {
    assert.equal(holdsRole(assignments, { role: 'site-manager:role-admin', experiment: null }), true);
    assert.equal(holdsRole(assignments, { role: 'participant', experiment: 'exp-1' }), true);
    assert.equal(holdsRole(assignments, { role: 'participant', experiment: 'exp-3' }), false);
    assert.equal(holdsRole(assignments, { role: 'participant', experiment: null }), false);
  });
  it('never shows another tool\'s permission, whatever the assignments (property)', () => {
    const roleName = fc.stringMatching(/^[a-z]{1,6}(:[a-z]{1,6})?$/);
    fc.assert(fc.property(
      fc.array(fc.record({ role: roleName, experiment: fc.option(fc.stringMatching(/^[a-z0-9]{1,4}$/), { nil: null }) }), { maxLength: 12 }),
      fc.stringMatching(/^[a-z]{1,6}$/),
      (list, tool) => {
        const seen = visibleRoles(grantOf(tool, 'readGlobalRoles', 'readLocalRoles'), list);
        return seen.every((r) => !r.role.includes(':') || r.role.startsWith(`${tool}:`));
      },
    ));
  });
});

describe('user paging', () => {
  it('defaults to offset 0, count 50', () => assert.deepEqual(userPage(undefined, undefined), { offset: 0, count: 50 }));
  it('reads digits and numbers', () => {
    assert.deepEqual(userPage('10', '5'), { offset: 10, count: 5 });
    assert.deepEqual(userPage(10, 50), { offset: 10, count: 50 });
  });
  for (const [offset, count] of [['-1', '1'], ['0', '0'], ['0', '51'], ['1.5', '1'], ['1e3', '1'], ['0x1', '1'], ['', '1'], [['1', '2'], '1'], ['0', ' 5'], ['+1', '1']] as const) {
    it(`refuses offset=${JSON.stringify(offset)} count=${JSON.stringify(count)} with 422`, () => assert.equal(statusOf(() => userPage(offset, count)), 422));
  }
  it('lands absurd offsets past the end instead of overflowing', () => assert.equal(userPage('9'.repeat(40), '1').offset, 2_147_483_647));
});

describe('redirect URIs', () => {
  for (const uri of ['https://a.example/cb', 'http://localhost:3000/cb?x=1', 'com.example.app:/oauth2redirect', 'urn:ietf:wg:oauth:2.0:oob', 'https://a.example/*']) {
    it(`accepts ${uri}`, () => assert.equal(isRedirectUri(uri), true));
  }
  for (const uri of ['/cb', 'cb', '', 'https://', 'http:foo', 'https://a.example/cb#x', 'https://a .example', 'ht tp://a', `https://a.example/${'x'.repeat(2048)}`, 'https://a.example/\u0001']) {
    it(`refuses ${JSON.stringify(uri.slice(0, 30))}`, () => assert.equal(isRedirectUri(uri), false));
  }
  it('allows a fragment in a client\'s home page', () => assert.equal(isAbsoluteUri('https://a.example/#about'), true));
  it('drops repeats, keeps order, refuses the lot for one bad URI', () => {
    assert.deepEqual(redirectUriSet(['https://b.example', 'https://a.example', 'https://b.example']), ['https://b.example', 'https://a.example']);
    assert.equal(statusOf(() => redirectUriSet(['https://a.example', 'relative'])), 422);
    assert.equal(statusOf(() => redirectUriSet(Array.from({ length: 101 }, (_, i) => `https://a.example/${i}`))), 422);
    assert.equal(redirectUriSet(Array.from({ length: 101 }, () => 'https://a.example/')).length, 1);
  });
});

describe('new clients', () => {
  it('reads empty strings as none and lets the platform pick the id', () => {
    assert.deepEqual(planNewClient({ clientName: 'X', clientUri: '', redirectUri: '' }), { clientId: undefined, name: 'X', uri: null, redirectUris: [] });
  });
  it('refuses reserved and malformed ids (422)', () => {
    for (const clientId of ['opencity-admin', 'opencity-x', 'a b', 'x'.repeat(129), 'a/b']) {
      assert.equal(statusOf(() => planNewClient({ clientId })), 422, clientId);
    }
    assert.equal(planNewClient({ clientId: 'ocsite-valencia' }).clientId, 'ocsite-valencia');
  });
});
