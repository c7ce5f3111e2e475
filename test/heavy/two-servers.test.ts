import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { federationWrite, fetchToken, prepareSite, storedState } from '../helpers/hardening-load.js';
import { Store } from '../../src/storage/store.js';

/**
 * Two server processes on one PostgreSQL store under concurrent load: quotas and
 * create-once hold across them, a token of one is accepted by the other, nothing
 * is lost; a write through either is seen at once through the other, whose kept
 * answers are warm (the checks and the stale answers counted and printed as
 * `# two-servers freshness …`); a reader in a third process learns of every
 * change from the change log; and the throughput of two processes against one.
 */

const WRITES = Number(process.env.TWO_SERVER_WRITES ?? 3000);
/** Writes through one server each followed by the other's reads (8 kept answers compared, 3 values looked for). */
const FRESHNESS_ROUNDS = Number(process.env.TWO_SERVER_FRESHNESS_ROUNDS ?? 100);
const CONCURRENCY = 32;

/** Runs `count` jobs with at most `concurrency` at once; returns their results in order. */
async function pool<T>(count: number, concurrency: number, job: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await job(i);
    }
  }));
  return results;
}

if (STORES.includes('postgres')) {
  describe('two server processes on one PostgreSQL store', () => {
    let db: TestDatabase;
    let a: ServerProcess;
    let b: ServerProcess;
    let tokenA = '';
    let tokenB = '';
    let quotaSecret = '';

    before(async () => {
      db = await createTestDatabase('postgres');
      const secret = await prepareSite(db.url, 'shared');
      quotaSecret = await prepareSite(db.url, 'quotaville', 40);
      [a, b] = await Promise.all([startServer({ DATABASE_URL: db.url }), startServer({ DATABASE_URL: db.url })]);
      tokenA = await fetchToken(a.url, 'ocsite-shared', secret);
      tokenB = await fetchToken(b.url, 'ocsite-shared', secret);
    });

    after(async () => {
      await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
      await db?.drop();
    });

    it('accepts on one server the tokens the other issued', async () => {
      for (const [server, token] of [[b, tokenA], [a, tokenB]] as const) {
        const res = await fetch(`${server.url}/federation/v2/entities/${encodeURIComponent('urn:oc:entity:shared:none:x:1')}`, { headers: { authorization: `Bearer ${token}` } });
        assert.equal(res.status, 404, await res.text());
      }
    });

    it('creates each asset once when both servers receive it at the same time', async () => {
      const ids = Array.from({ length: 60 }, (_, i) => `urn:oc:entity:shared:once:x:${i}`);
      const statuses = await Promise.all(ids.map(async (id, i) => {
        const [x, y] = await Promise.all([federationWrite(a.url, tokenA, 'create', id, i + 1), federationWrite(b.url, tokenB, 'create', id, i + 1)]);
        return [x, y].sort().join(',');
      }));
      for (const s of statuses) assert.equal(s, '201,422');
    });

    it('holds a site quota across both servers', async () => {
      const token = await fetchToken(a.url, 'ocsite-quotaville', quotaSecret);
      const statuses = await pool(100, CONCURRENCY, (i) => federationWrite(i % 2 ? a.url : b.url, token, 'create', `urn:oc:entity:quotaville:q:x:${i}`, i + 1));
      assert.equal(statuses.filter((s) => s === 201).length, 40, JSON.stringify(statuses));
      assert.ok(statuses.every((s) => s === 201 || s === 400));
      const state = await storedState(db.url, 'quotaville');
      assert.equal(state.assets.size, 40);
      assert.equal(state.counted, 40);
    });

    it('loses nothing under concurrent load on both, and reports the throughput of one and two processes', async () => {
      const run = async (label: string, servers: Array<[ServerProcess, string]>) => {
        const started = performance.now();
        const statuses = await pool(WRITES, CONCURRENCY * servers.length, (i) => {
          const [server, token] = servers[i % servers.length] as [ServerProcess, string];
          return federationWrite(server.url, token, 'create', `urn:oc:entity:shared:${label}:x:${i}`, 100_000 + i);
        });
        const seconds = (performance.now() - started) / 1000;
        assert.ok(statuses.every((s) => s === 201), `${label}: ${statuses.filter((s) => s !== 201).slice(0, 5).join(',')}`);
        return WRITES / seconds;
      };
      const one = await run('one', [[a, tokenA]]);
      const two = await run('two', [[a, tokenA], [b, tokenB]]);
      const state = await storedState(db.url, 'shared');
      for (const label of ['one', 'two']) {
        for (let i = 0; i < WRITES; i++) {
          const id = `urn:oc:entity:shared:${label}:x:${i}`;
          assert.ok(state.assets.has(id), `${id} lost`);
          assert.deepEqual(state.readings.get(id)?.get('temperature'), [String(100_000 + i)], `${id}: readings`);
        }
      }
      assert.equal(state.counted, state.assets.size);
      process.stdout.write(`# two-servers writes=${WRITES} one-process=${one.toFixed(0)}/s two-processes=${two.toFixed(0)}/s ratio=${(two / one).toFixed(2)} lost=0\n`);
    });

    it("shows a write through either server at once through the other's discovery, datasource and NGSI reads, with the other's kept answers warm", async () => {
      const id = 'urn:oc:entity:shared:fresh:x:1';
      const urls = [
        `/discovery/v0/assets/${id}`, '/discovery/v0/assets?per=100&site=shared', '/discovery/v0/assets/sites/shared', '/discovery/v0/assets/sites',
        `/datasource/${id}/temperature/readings`, `/datasource/${id}/readings?lastN=5`,
        `/federation/v2/entities/${id}`, '/federation/v2/entities?idPattern=:fresh:&options=count',
      ];
      const tokenOf = (server: ServerProcess) => (server === a ? tokenA : tokenB);
      // The site's own reads take its token; each server is asked with the token it issued.
      const body = async (server: ServerProcess, url: string) => {
        const headers = url.startsWith('/federation/') ? { authorization: `Bearer ${tokenOf(server)}` } : undefined;
        const res = await fetch(`${server.url}${url}`, { headers });
        const total = res.headers.get('fiware-total-count');
        return `${res.status}${total === null ? '' : ` (${total})`} ${await res.text()}`;
      };
      // Every answer of the reading server is checked against the writing server's, or against the value written; a
      // stale answer is counted, and the count asserted at the end, so that the figure printed is the whole run's.
      let checks = 0;
      const stale: string[] = [];
      const expect = (fresh: boolean, what: string) => {
        checks++;
        if (!fresh) stale.push(what);
      };
      assert.equal(await federationWrite(a.url, tokenA, 'create', id, 777_000), 201);
      for (let round = 0; round < FRESHNESS_ROUNDS; round++) {
        // Even rounds write through A and read through B, odd ones the other way round.
        const [writer, reader] = round % 2 === 0 ? [a, b] : [b, a];
        const value = 777_001 + round;
        // Asked twice, each answer is kept by the reader.
        for (const url of urls) {
          await body(reader, url);
          await body(reader, url);
        }
        assert.equal(await federationWrite(writer.url, tokenOf(writer), 'update', id, value), 204);
        for (const url of urls) {
          const [seenByReader, seenByWriter] = [await body(reader, url), await body(writer, url)];
          expect(seenByReader === seenByWriter, `${url} after update ${value}`);
        }
        for (const url of [`/discovery/v0/assets/${id}`, `/datasource/${id}/temperature/readings`, `/federation/v2/entities/${id}`]) {
          expect(new RegExp(`^200 .*${value}`).test(await body(reader, url)), `${url} shows update ${value}`);
        }
      }
      const created = 'urn:oc:entity:shared:fresh:x:2';
      const sitesBefore = await body(b, '/discovery/v0/assets/sites/shared');
      assert.equal(await federationWrite(a.url, tokenA, 'create', created, 777_000 + FRESHNESS_ROUNDS + 1), 201);
      expect(await body(b, '/discovery/v0/assets/sites/shared') !== sitesBefore, 'the site summary after a create');
      expect(await body(b, '/discovery/v0/assets/sites/shared') === await body(a, '/discovery/v0/assets/sites/shared'), 'the site summary on both');
      expect(new RegExp(created).test(await body(b, '/discovery/v0/assets?per=100&site=shared')), 'the listing after a create');
      expect(new RegExp(`^200 \\(2\\) .*${created}`).test(await body(b, '/federation/v2/entities?idPattern=:fresh:&options=count')), 'the NGSI count after a create');
      process.stdout.write(`# two-servers freshness rounds=${FRESHNESS_ROUNDS} checks=${checks} stale=${stale.length}\n`);
      assert.deepEqual(stale, []);
    });

    it('lets a reader in another process learn of every change either server commits, in order', async () => {
      const reader = Store.open(db.url);
      try {
        let seen = await reader.changes.latest();
        const ids = Array.from({ length: 40 }, (_, i) => `urn:oc:entity:shared:feed:x:${i}`);
        const learned: string[] = [];
        const seqs: number[] = [];
        const reading = (async () => {
          const deadline = Date.now() + 30_000;
          while (learned.length < ids.length && Date.now() < deadline) {
            if (!(await reader.changes.waitAfter(seen, deadline - Date.now()))) break;
            for (const change of await reader.changes.after(seen)) {
              seen = change.seq;
              seqs.push(change.seq);
              if (change.assetId.startsWith('urn:oc:entity:shared:feed:')) learned.push(`${change.kind} ${change.assetId}`);
            }
          }
        })();
        const statuses = await pool(ids.length, 8, (i) => federationWrite(i % 2 ? a.url : b.url, i % 2 ? tokenA : tokenB, 'create', ids[i] as string, 888_000 + i));
        assert.ok(statuses.every((s) => s === 201), statuses.join(','));
        await reading;
        assert.deepEqual([...learned].sort(), ids.map((id) => `create ${id}`).sort());
        assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
      } finally {
        await reader.close();
      }
    });

  });
}
