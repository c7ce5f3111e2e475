import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { registerUser } from '../../src/identity/users.js';
import { describeEachStore, type TestPlatform } from '../helpers/platform.js';
import { adminToken, call, errorOf, toolToken } from '../helpers/permissions.js';

const users = (p: TestPlatform, token: string, query = '') => call(p, { method: 'GET', url: `/users${query}`, token });

/** Names whose order differs between byte order and a natural-language collation. */
const ODD_NAMES = ['Zoe', 'adam', 'adam.b', 'adam-c', 'adam_d', 'b', 'Émile', 'zed'];

describeEachStore('permissions: users', (platform) => {
  /** The 120 people the tests below list and search for. */
  const created: Array<{ id: string; name: string }> = [];
  before(async () => {
    const p = platform();
    const names = [
      ...Array.from({ length: 120 - ODD_NAMES.length }, (_, i) => `user-${String(i).padStart(3, '0')}`),
      ...ODD_NAMES,
    ];
    // Created concurrently, in no particular order: the listing must sort them.
    created.push(...await Promise.all([...names].reverse().map((username) =>
      registerUser(p.ctx.store, p.clock, { username, email: `${username.toLowerCase()}@example.org` }))));
  });

  it('pages through 120 users in pages of 50, each exactly once, sorted by name', async () => {
    const p = platform();
    const token = await adminToken(p);

    const seen: Array<{ id: string; name: string }> = [];
    const sizes: number[] = [];
    for (let offset = 0; offset < 1000; offset += 50) {
      const res = await users(p, token, `?offset=${offset}&count=50`);
      assert.equal(res.statusCode, 200);
      const page = res.json() as Array<{ id: string; name: string }>;
      sizes.push(page.length);
      if (page.length === 0) break;
      seen.push(...page);
    }
    assert.deepEqual(sizes, [50, 50, 20, 0]);
    const byteOrder = [...created].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    assert.deepEqual(seen, byteOrder);
    assert.equal(new Set(seen.map((u) => u.id)).size, 120);
  });

  it('shows only id and name, lists no service accounts, and defaults to offset 0, count 50', async () => {
    const p = platform();
    await p.clientToken('some-client');
    const res = await users(p, await adminToken(p));
    assert.equal(res.statusCode, 200);
    const page = res.json() as Array<Record<string, unknown>>;
    assert.equal(page.length, 50);
    for (const u of page) assert.deepEqual(Object.keys(u).sort(), ['id', 'name']);
    const all = [
      ...page,
      ...(await users(p, await adminToken(p), '?offset=50')).json(),
      ...(await users(p, await adminToken(p), '?offset=100')).json(),
    ] as Array<{ name: string }>;
    assert.equal(all.length, 120);
    assert.ok(all.every((u) => !u.name.startsWith('service-account-')));
  });

  it('answers an offset past the end with 200 [] (also an absurdly large one)', async () => {
    const p = platform();
    const token = await adminToken(p);
    for (const offset of ['120', '5000', '99999999999999999999999']) {
      const res = await users(p, token, `?offset=${offset}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), []);
    }
    const last = await users(p, token, '?offset=119&count=1');
    assert.deepEqual((last.json() as Array<{ name: string }>).map((u) => u.name), ['Émile']);
  });

  it('refuses bad offset and count with 422 {error}', async () => {
    const p = platform();
    const token = await adminToken(p);
    const cases: Array<[string, RegExp]> = [
      ['?count=51', /^The given count is too large\.$/],
      ['?count=0', /count is too small/],
      ['?count=-3', /count is too small/],
      ['?offset=-1', /offset is negative/],
      ['?count=abc', /count is not an integer/],
      ['?offset=1.5', /offset is not an integer/],
      ['?offset=1e3', /offset is not an integer/],
      ['?offset=0x10', /offset is not an integer/],
      ['?count=', /count is not an integer/],
      ['?count=10&count=20', /count is not an integer/],
    ];
    for (const [query, message] of cases) {
      const res = await users(p, token, query);
      assert.equal(res.statusCode, 422, query);
      assert.match(errorOf(res), message, query);
    }
  });

  it('finds a user by e-mail address, ignoring case, as a list of one; 404 {error} otherwise', async () => {
    const p = platform();
    const token = await adminToken(p);
    const adam = created.find((u) => u.name === 'adam');
    const found = await users(p, token, '?email=Adam%40Example.org');
    assert.equal(found.statusCode, 200);
    assert.deepEqual(found.json(), [adam]);
    for (const email of ['nobody%40example.org', 'adam', 'example.org', '%00']) {
      const res = await users(p, token, `?email=${email}`);
      assert.equal(res.statusCode, 404, email);
      assert.match(errorOf(res), /No user has that e-mail address/);
    }
    const twice = await users(p, token, '?email=a%40b.c&email=d%40e.f');
    assert.equal(twice.statusCode, 400);
    errorOf(twice);
    const long = await users(p, token, `?email=${'a'.repeat(321)}`);
    assert.equal(long.statusCode, 400);
    errorOf(long);
  });

  it('demands listUsers to list and findUserByEmail to search (403 {error} otherwise)', async () => {
    const p = platform();
    const lister = await toolToken(p, 'lister', ['listUsers']);
    const finder = await toolToken(p, 'finder', ['findUserByEmail']);
    assert.equal((await users(p, lister, '?count=1')).statusCode, 200);
    const listerSearching = await users(p, lister, '?email=adam%40example.org');
    assert.equal(listerSearching.statusCode, 403);
    assert.match(errorOf(listerSearching), /accounts-permissions:findUserByEmail/);
    assert.equal((await users(p, finder, '?email=adam%40example.org')).statusCode, 200);
    const finderListing = await users(p, finder);
    assert.equal(finderListing.statusCode, 403);
    assert.match(errorOf(finderListing), /accounts-permissions:listUsers/);
    const neither = await toolToken(p, 'neither', ['readGlobalRoles']);
    assert.equal((await users(p, neither)).statusCode, 403);
    // The permission check comes before the bounds check.
    assert.equal((await users(p, finder, '?count=500')).statusCode, 403);
  });

  it('refuses a call without a token (401) and a user\'s token (403)', async () => {
    const p = platform();
    const anonymous = await call(p, { method: 'GET', url: '/users' });
    assert.equal(anonymous.statusCode, 401);
    errorOf(anonymous);
    const { token } = await p.userToken('person', ['accounts-permissions:listUsers']);
    const res = await users(p, token);
    assert.equal(res.statusCode, 403);
    errorOf(res);
  });
});
