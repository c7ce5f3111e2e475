import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { KNOWN_ADDRESSES_PER_PRINCIPAL, REREAD_AFTER_MS } from '../../src/domain/sign-in-addresses.js';
import { ManualTimers } from '../../src/domain/timers.js';
import { registerClient } from '../../src/identity/clients.js';
import { PRINCIPAL_BACKOFF } from '../../src/identity/failed-attempts.js';
import { removeClientRecord } from '../../src/storage/repositories/principal-admin.js';
import { readSignInAddresses } from '../../src/storage/repositories/sign-in-addresses.js';
import type { Store } from '../../src/storage/store.js';
import { OIDC } from '../helpers/identity.js';
import { STORES, createTestDatabase } from '../helpers/stores.js';

/**
 * A sustained guessing attack on one client from many addresses (one wrong guess per simulated
 * second for an hour) must not lock the legitimate site out for more than minutes: at once where
 * it signed in before, even on a server process started after that sign-in, and within one wait
 * of the client's back-off and one retry from an address it never used.
 */

const SITE_ADDRESS = '192.0.2.10';
const HOUR_S = 3600;
/** The site tries this often. */
const RETRY_S = 30;

/** The attacker's address at a second of the attack: a new one each second. */
const attacker = (second: number): string => `10.0.${Math.floor(second / 250) % 250}.${second % 250}`;

interface Server {
  app: FastifyInstance;
  store: Store;
  close(): Promise<void>;
}

/** A server process on the database `url`, on the shared clock, the per-minute rate limit off. */
async function serve(url: string, clock: ManualClock): Promise<Server> {
  const { app, ctx } = await buildApp({ config: testConfig({ databaseUrl: url, tokenRateLimit: 0 }), clock, timers: new ManualTimers(clock) });
  return { app, store: ctx.store, close: () => app.close() };
}

function token(server: Server, clientId: string, secret: string, address: string): Promise<LightMyRequestResponse> {
  return server.app.inject({
    method: 'POST', url: `${OIDC}/token`, remoteAddress: address,
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${encodeURIComponent(secret)}`).toString('base64')}` },
    payload: 'grant_type=client_credentials',
  });
}

/** One wrong guess at `second`; whether the back-off refused it unchecked. */
async function guess(server: Server, clientId: string, second: number): Promise<boolean> {
  const res = await token(server, clientId, 'wrong-guess', attacker(second));
  assert.ok(res.statusCode === 401 || res.statusCode === 429, `guess answered ${res.statusCode}`);
  return res.statusCode === 429;
}

for (const kind of STORES) {
  describe(`identity: a sustained attack does not lock a site out [${kind}]`, () => {
    it('at its usual address, after a restart, the site signs in every time through an hour of guesses from elsewhere', async () => {
      const db = await createTestDatabase(kind);
      const clock = new ManualClock();
      try {
        const first = await serve(db.url, clock);
        const { secret } = await registerClient(first.store, clock, { clientId: 'ocsite-steady' });
        assert.equal((await token(first, 'ocsite-steady', secret, SITE_ADDRESS)).statusCode, 200);
        await first.close();
        clock.advance(60_000);

        // A new process on the same database: its counts start empty, the site's address is in the store.
        const next = await serve(db.url, clock);
        try {
          let refused = 0;
          const answers = new Set<number>();
          for (let second = 0; second < HOUR_S; second++) {
            if (await guess(next, 'ocsite-steady', second)) refused++;
            if (second % RETRY_S === 0) {
              const res = await token(next, 'ocsite-steady', secret, SITE_ADDRESS);
              answers.add(res.statusCode);
              assert.equal(res.statusCode, 200, `the site at ${second} s`);
            }
            clock.advance(1000);
          }
          assert.deepEqual([...answers], [200]);
          assert.ok(refused > HOUR_S * 0.75, `the client's back-off held most guesses (${refused} of ${HOUR_S})`);
        } finally {
          await next.close();
        }
      } finally {
        await db.drop();
      }
    });

    it('from addresses it never used, the site signs in within one wait (at most 5 minutes) and one retry, all hour long', async () => {
      const db = await createTestDatabase(kind);
      const clock = new ManualClock();
      const server = await serve(db.url, clock);
      try {
        const { secret } = await registerClient(server.store, clock, { clientId: 'ocsite-moving' });
        let refused = 0;
        let episode = 0;
        let since: number | undefined;
        const waits: number[] = [];
        for (let second = 0; second < HOUR_S; second++) {
          if (await guess(server, 'ocsite-moving', second)) refused++;
          if (second % RETRY_S === 0) {
            // Each sign-in from a new address: once one works, the next one is tried from another.
            const res = await token(server, 'ocsite-moving', secret, `198.51.100.${episode}`);
            since ??= second;
            if (res.statusCode === 200) {
              waits.push(second - since);
              since = undefined;
              episode++;
            } else {
              assert.equal(res.statusCode, 429);
              assert.ok(Number(res.headers['retry-after']) <= PRINCIPAL_BACKOFF.maxWaitMs / 1000);
            }
          }
          clock.advance(1000);
        }
        const bound = PRINCIPAL_BACKOFF.maxWaitMs / 1000 + RETRY_S;
        assert.ok(waits.length >= 10, `signed in ${waits.length} times`);
        assert.ok(Math.max(...waits) <= bound, `longest wait ${Math.max(...waits)} s (bound ${bound} s): ${waits.join(', ')}`);
        assert.ok(since === undefined || HOUR_S - since <= bound, 'the last try was not held longer either');
        assert.ok(waits.some((w) => w > 0), 'the client\'s back-off held the new addresses too');
        assert.ok(refused > HOUR_S * 0.7, `the client's back-off held most guesses (${refused} of ${HOUR_S})`);
        const kept = await readSignInAddresses(server.store, 'client:ocsite-moving', clock.now());
        assert.equal(kept.size, Math.min(episode, KNOWN_ADDRESSES_PER_PRINCIPAL), 'the most recent addresses are kept, no more');
        assert.ok(kept.has(`198.51.100.${episode - 1}`));
      } finally {
        await server.close();
        await db.drop();
      }
    });

    it('an address the site signed in from on one process is known to another within a minute', async () => {
      const db = await createTestDatabase(kind);
      const clock = new ManualClock();
      const a = await serve(db.url, clock);
      const b = await serve(db.url, clock);
      try {
        const { secret } = await registerClient(a.store, clock, { clientId: 'ocsite-shared' });
        let second = 0;
        // The attack on process a until the client is held there.
        for (; second < 60; second++) {
          await guess(a, 'ocsite-shared', second);
          clock.advance(1000);
        }
        assert.equal((await token(a, 'ocsite-shared', secret, SITE_ADDRESS)).statusCode, 429, 'a new address is held');
        assert.equal((await token(b, 'ocsite-shared', secret, SITE_ADDRESS)).statusCode, 200, 'process b is not under attack');
        const signedInOnB = clock.now();
        let through: number | undefined;
        for (; second < 600 && through === undefined; second++) {
          await guess(a, 'ocsite-shared', second);
          if (second % 10 === 0 && (await token(a, 'ocsite-shared', secret, SITE_ADDRESS)).statusCode === 200) through = clock.now();
          clock.advance(1000);
        }
        assert.ok(through !== undefined && through - signedInOnB <= REREAD_AFTER_MS + 10_000, `through after ${through === undefined ? 'never' : through - signedInOnB} ms`);

        // A client removed forgets its addresses with it.
        assert.equal(await removeClientRecord(a.store, 'ocsite-shared'), true);
        assert.equal((await readSignInAddresses(a.store, 'client:ocsite-shared', clock.now())).size, 0);
      } finally {
        await a.close();
        await b.close();
        await db.drop();
      }
    });
  });
}
