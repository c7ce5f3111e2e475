import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import fc from 'fast-check';
import { describeEachStore } from './platform.js';
import { assetBody, create, timeInstant, update } from './federation.js';
import { adminToken, call } from './permissions.js';
import { fuzzCase, injectAnswer, interfaceOf, isBrowserPage, listRoutes, storeDigest, toRequest, type Route } from './hardening-fuzz.js';

/**
 * Bad input on every route of every interface: a property-based fuzzer sends
 * malformed requests (wrong types, deep and large JSON, broken encodings, odd
 * path and query characters, missing and duplicated headers, SQL and
 * path-traversal strings). The platform never answers 5xx, always answers an
 * error in JSON, and the stored data does not change.
 *
 * Declared once per store; `runs` requests go to each interface (a fifth of
 * them to the operational routes), so a store gets `runs * 5 + runs / 5`.
 */

export const INTERFACES = ['federation', 'permissions', 'discovery', 'datasource', 'identity', 'platform'] as const;

/** Requests one store gets for `runs` per interface. */
export const requestsPerStore = (runs: number): number => runs * (INTERFACES.length - 1) + Math.ceil(runs / 5);

export function fuzzEveryRoute(title: string, { runs, seed, atLeastPerStore = runs * 5 }: { runs: number; seed: number; atLeastPerStore?: number }): void {
  describeEachStore(title, (platform) => {
    let routes: Route[] = [];
    let tokens: string[] = [];
    let digestBefore: Awaited<ReturnType<typeof storeDigest>>;
    const tally = { sent: 0, fiveHundreds: 0, byStatus: new Map<number, number>() };

    before(async () => {
      const p = platform();
      const site = await p.siteToken('santander');
      for (let i = 0; i < 3; i++) {
        const id = `urn:oc:entity:santander:traffic:sensor:${i}`;
        assert.equal((await create(p, site, assetBody(id, { location: { type: 'geo:json', value: { type: 'Point', coordinates: [-3.8 + i / 100, 43.46] } } }))).statusCode, 201);
        assert.equal((await update(p, site, id, { TimeInstant: timeInstant('2017-07-25T14:35:00.000Z'), temperature: { type: 'Number', value: 20 + i } })).statusCode, 204);
      }
      const admin = await adminToken(p);
      const { token: user, userId } = await p.userToken('fuzz-user', ['administrator']);
      assert.equal((await call(p, { method: 'POST', url: `/users/${userId}/roles`, token: admin, body: { role: 'participant', experiment: 'exp1' } })).statusCode < 300, true);
      tokens = [site, admin, user, await p.clientToken('fuzz-tool', ['accounts-permissions:readGlobalRoles'])];
      routes = await listRoutes(p.app);
      for (const name of ['federation', 'permissions', 'discovery', 'datasource', 'identity']) {
        assert.ok(routes.some((r) => interfaceOf(r.path) === name), `no route found for ${name}`);
      }
      digestBefore = await storeDigest(p.ctx.store);
    });

    for (const name of INTERFACES) {
      it(`${name}: never a 5xx, always a JSON error (seed ${seed})`, async () => {
        const p = platform();
        const mine = routes.filter((r) => interfaceOf(r.path) === name);
        const count = name === 'platform' ? Math.ceil(runs / 5) : runs;
        await fc.assert(fc.asyncProperty(fuzzCase(mine, tokens.length), async (c) => {
          const req = toRequest(c, tokens);
          const res = await injectAnswer(p.app, req);
          tally.sent++;
          tally.byStatus.set(res.statusCode, (tally.byStatus.get(res.statusCode) ?? 0) + 1);
          if (res.statusCode >= 500) tally.fiveHundreds++;
          try {
            check(req, res);
          } catch (error) {
            // fast-check reports the counterexample; the reason goes out short and first.
            process.stderr.write(`# fuzz failure [${p.kind}]: ${(error as Error).message.slice(0, 600)}\n`);
            throw error;
          }
        }), { numRuns: count, seed, endOnFailure: true });
      });
    }

    it('refuses an oversized body on every write route with 413 JSON', async () => {
      const p = platform();
      const big = JSON.stringify({ id: 'urn:oc:entity:santander:big', pad: 'x'.repeat(1024 * 1024 + 1) });
      for (const r of routes.filter((x) => x.method === 'POST' || x.method === 'PUT')) {
        const url = r.path.replace(/\{[^}]+\}/g, 'x');
        const res = await p.app.inject({ method: r.method, url, headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens[1]}`, 'platform-service': 'opencity' }, payload: big });
        assert.equal(res.statusCode, 413, `${r.method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), isBrowserPage(r.path) ? /^(application\/json|text\/html)/ : /^application\/json/);
      }
    });

    it('leaves the stored data exactly as it was', async () => {
      const after = await storeDigest(platform().ctx.store);
      assert.deepEqual(after.rows, digestBefore.rows);
      assert.equal(after.digest, digestBefore.digest);
      assert.ok(tally.sent >= atLeastPerStore, `sent ${tally.sent}, fewer than ${atLeastPerStore}`);
      assert.equal(tally.fiveHundreds, 0);
      process.stdout.write(`# fuzz [${platform().kind}] seed=${seed} requests=${tally.sent} 5xx=${tally.fiveHundreds} data=unchanged statuses=${JSON.stringify(Object.fromEntries([...tally.byStatus].sort((a, b) => a[0] - b[0])))}\n`);
    });
  });
}

const READS_BY_POST = /\/openid-connect\/(userinfo|revoke|logout)$|^\/federation\/v2\/op\/query$/;

function check(req: ReturnType<typeof toRequest>, res: { statusCode: number; headers: Record<string, unknown>; body: string }): void {
  assert.ok(res.statusCode < 500, `${req.method} ${req.url.slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400 && req.method !== 'HEAD' && isBrowserPage(req.url.split('?')[0] as string) && /^text\/html/.test(String(res.headers['content-type']))) {
    assert.ok(res.body.length > 0);
  } else if (res.statusCode >= 400 && req.method !== 'HEAD') {
    assert.match(String(res.headers['content-type']), /^application\/json/, `${req.method} ${req.url.slice(0, 200)} -> ${res.statusCode} not JSON`);
    const parsed = JSON.parse(res.body) as { error?: unknown };
    assert.equal(typeof parsed.error, 'string', `${req.method} ${req.url.slice(0, 200)} -> ${res.body.slice(0, 200)}`);
  }
  // userinfo and NGSI's /v2/op/query (whose empty selection lists every entity) read by POST too;
  // revocation and sign-out answer 200 for unknown tokens (RFC 7009, OIDC): that nothing was changed
  // by them is the digest's to prove.
  if (res.statusCode < 300) assert.ok(req.method === 'GET' || req.method === 'HEAD' || READS_BY_POST.test(req.url.split('?')[0] as string), `${req.method} ${req.url.slice(0, 200)} accepted: ${res.statusCode}`);
}
