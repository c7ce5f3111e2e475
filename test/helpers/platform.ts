import { after, before, describe } from 'node:test';
import { buildApp } from '../../src/app.js';
import { testConfig, type Config } from '../../src/config.js';
import type { AppContext } from '../../src/context.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ManualTimers } from '../../src/domain/timers.js';
import { registerClient } from '../../src/identity/clients.js';
import { registerUser } from '../../src/identity/users.js';
import { issueAccessToken } from '../../src/identity/tokens.js';
import { findClient, findUserById, findUserByUsername, type RoleAssignment } from '../../src/storage/repositories/principals.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import type { FastifyInstance } from 'fastify';
import { STORES, createTestStore, type StoreKind, type TestDatabase } from './stores.js';

export interface TestPlatform {
  kind: StoreKind;
  app: FastifyInstance;
  ctx: AppContext;
  clock: ManualClock;
  /** The app's repeating timers: they fire (and move the clock) only when advanced. */
  timers: ManualTimers;
  db: TestDatabase;
  /** An access token of client `clientId` (created on first use with these roles). */
  clientToken(clientId: string, roles?: Array<string | RoleAssignment>): Promise<string>;
  /** Creates site `site` (centre lat/lon) and its client; returns the site client's token. */
  siteToken(site: string, centre?: { latitude: number; longitude: number; quota?: number | null }): Promise<string>;
  /** An access token of user `username` (created on first use with these roles), issued to `clientId`. */
  userToken(username: string, roles?: Array<string | RoleAssignment>, clientId?: string): Promise<{ token: string; userId: string }>;
  close(): Promise<void>;
}

const asAssignment = (r: string | RoleAssignment): RoleAssignment => (typeof r === 'string' ? { role: r, experiment: null } : r);

/** The whole platform, in-process, on a fresh database of `kind`, with a manual clock. */
export async function startPlatform(kind: StoreKind, overrides: Partial<Config> = {}, build: { clock?: ManualClock; timers?: ManualTimers } = {}): Promise<TestPlatform> {
  const { store, db, dispose } = await createTestStore(kind);
  const clock = build.clock ?? new ManualClock();
  const timers = build.timers ?? new ManualTimers(clock);
  const { app, ctx } = await buildApp({ config: testConfig({ databaseUrl: db.url, ...overrides }), store, clock, timers });

  const clientToken = async (clientId: string, roles: Array<string | RoleAssignment> = []) => {
    let client = await findClient(store, clientId);
    if (!client) {
      await registerClient(store, clock, { clientId, roles: roles.map(asAssignment) });
      client = await findClient(store, clientId);
    }
    const user = await findUserById(store, client!.serviceAccountUserId);
    const issued = await issueAccessToken(ctx.tokens, { user: user!, clientId, serviceAccountOf: clientId, scope: 'profile email' });
    return issued.accessToken;
  };

  return {
    kind, app, ctx, clock, timers, db, clientToken,
    async siteToken(site, centre = { latitude: 43.4623, longitude: -3.80998 }) {
      await upsertSite(store, {
        id: site, name: site, type: 'city', latitude: centre.latitude, longitude: centre.longitude,
        countryCode: null, country: null, city: site, quota: centre.quota ?? null,
      }, clock.now());
      return clientToken(`ocsite-${site}`, ['ocsite']);
    },
    async userToken(username, roles = [], clientId = 'opencity-observatory') {
      let user = await findUserByUsername(store, username);
      if (!user) {
        const created = await registerUser(store, clock, { username, email: `${username}@example.org`, roles: roles.map(asAssignment) });
        user = await findUserById(store, created.id);
      }
      const issued = await issueAccessToken(ctx.tokens, { user: user!, clientId, scope: 'openid profile email' });
      return { token: issued.accessToken, userId: user!.id };
    },
    async close() {
      await app.close();
      await dispose();
    },
  };
}

/**
 * Declares the suite once per store (SQLite and PostgreSQL). `body` gets a
 * getter for the running platform, valid inside tests and hooks.
 */
export function describeEachStore(title: string, body: (platform: () => TestPlatform, kind: StoreKind) => void, overrides: Partial<Config> = {}): void {
  for (const kind of STORES) {
    describe(`${title} [${kind}]`, () => {
      let platform: TestPlatform | undefined;
      before(async () => {
        platform = await startPlatform(kind, overrides);
      });
      after(async () => {
        await platform?.close();
      });
      body(() => {
        if (!platform) throw new Error('platform not started');
        return platform;
      }, kind);
    });
  }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
