import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { STORES, createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';
import { prepareSite } from '../helpers/hardening-load.js';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * How long the real server (default STORE_TIMEOUT, 5 s) takes to answer 503 when its PostgreSQL
 * database is stopped (connections refused) and when it hangs (connections open, nothing answered,
 * as behind a network black hole): `/ready`, and a request that needs the store (a token request).
 * The times are measured and printed (`# store-unavailable …`), never asserted: what is asserted is
 * the status, the JSON error and `Retry-After`, and that the server is ready again afterwards.
 *
 * PostgreSQL only: a SQLite store is a file inside the server's process, which cannot be stopped
 * or hang apart from it (a write lock held by another process is in test/interface/store-hung.test.ts).
 */

const SAMPLES = 5;

interface Timed { status: number; headers: Headers; body: string; ms: number }

async function timed(url: string, init?: RequestInit): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  return { status: res.status, headers: res.headers, body, ms: performance.now() - started };
}

const summary = (xs: number[]): string => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0]?.toFixed(0)} median ${s[Math.floor(s.length / 2)]?.toFixed(0)} max ${s[s.length - 1]?.toFixed(0)} ms (n=${s.length})`;
};

if (STORES.includes('postgres')) {
  describe('a PostgreSQL store stopped or hung under the real server: time to the 503', () => {
    let db: TestDatabase;
    let proxy: TcpProxy;
    let server: ServerProcess;
    let secret = '';

    before(async () => {
      db = await createTestDatabase('postgres');
      secret = await prepareSite(db.url, 'outage');
      const through = await proxyInFront(db.url);
      proxy = through.proxy;
      server = await startServer({ DATABASE_URL: through.url });
    });

    after(async () => {
      proxy?.thaw();
      await server?.stop('SIGTERM');
      await proxy?.stop();
      await db?.drop();
    });

    const ready = () => timed(`${server.url}/ready`);
    const grant = () => timed(`${server.url}/auth/realms/opencity/protocol/openid-connect/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=ocsite-outage&client_secret=${encodeURIComponent(secret)}`,
    });

    function unavailable(res: Timed, what: string, retryAfter: boolean): void {
      assert.equal(res.status, 503, `${what}: ${res.status} ${res.body}`);
      assert.match(String(res.headers.get('content-type')), /^application\/json/, what);
      assert.match(String((JSON.parse(res.body) as { error?: unknown }).error), /^ServiceUnavailable$|^The store /, what);
      if (retryAfter) assert.match(String(res.headers.get('retry-after')), /^[1-9]\d*$/, `${what}: Retry-After`);
    }

    /** Asks until the server is ready and grants a token again (no waiting between asks: each answer comes within the bounds). */
    async function recovers(): Promise<void> {
      let readiness = 503;
      for (let i = 0; i < 50 && readiness !== 200; i++) readiness = (await ready()).status;
      assert.equal(readiness, 200, '/ready after the store came back');
      let granted = 503;
      for (let i = 0; i < 50 && granted !== 200; i++) granted = (await grant()).status;
      assert.equal(granted, 200, 'a token request after the store came back');
    }

    /** /ready SAMPLES times and a token request SAMPLES times, each a 503; their times. */
    async function measure(label: string): Promise<{ ready: number[]; grant: number[] }> {
      const times = { ready: [] as number[], grant: [] as number[] };
      for (let i = 0; i < SAMPLES; i++) {
        const res = await ready();
        unavailable(res, `${label}: /ready #${i + 1}`, false);
        times.ready.push(res.ms);
      }
      for (let i = 0; i < SAMPLES; i++) {
        const res = await grant();
        unavailable(res, `${label}: token request #${i + 1}`, true);
        times.grant.push(res.ms);
      }
      assert.equal((await timed(`${server.url}/health`)).status, 200);
      return times;
    }

    it('answers /ready, and a request with Retry-After, with 503 while the database is stopped (connections refused), and recovers', async () => {
      assert.equal((await ready()).status, 200);
      assert.equal((await grant()).status, 200);
      await proxy.refuseConnections();
      const times = await measure('stopped');
      await proxy.reopen();
      await recovers();
      process.stdout.write(`# store-unavailable [postgres] stopped: /ready 503 in ${summary(times.ready)}; token request 503 in ${summary(times.grant)}\n`);
    });

    it('answers /ready, and a request with Retry-After, with 503 while the database hangs (nothing forwarded), and recovers', async () => {
      assert.equal((await ready()).status, 200);
      assert.equal((await grant()).status, 200);
      proxy.freeze();
      const times = await measure('hung');
      proxy.thaw();
      await recovers();
      process.stdout.write(`# store-unavailable [postgres] hung: /ready 503 in ${summary(times.ready)}; token request 503 in ${summary(times.grant)} (STORE_TIMEOUT 5s)\n`);
    });
  });
}
