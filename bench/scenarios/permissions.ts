import { bareBaseline } from '../lib/baseline.js';
import { measurePair } from '../lib/compare.js';
import type { StoreKind } from '../lib/databases.js';
import { load, type RequestSpec } from '../lib/load.js';
import { startServer, type BenchServer } from '../lib/server.js';
import { systemClock } from '../../src/domain/clock.js';
import { registerUser } from '../../src/identity/users.js';
import { Store } from '../../src/storage/store.js';
import type { LoadResult, ResultRow, Scenario } from '../types.js';

/**
 * The permissions interface's hot read (issue: permissions interface): a tool
 * reading a user's roles, GET /permissions/users/{id}/roles, with a valid
 * token, over 1,000 users holding three roles each (global, experiment-scoped,
 * the tool's own permission), on SQLite and PostgreSQL, against a bare
 * node:http server answering the same JSON.
 */

const CONNECTIONS = 32;
const USERS = 1000;
const TOOL = 'bench-tool';
const SAMPLE_BODY = JSON.stringify([{ role: 'experimenter' }, { role: 'participant', experiment: 'exp-1' }, { role: `${TOOL}:viewer` }]);

/** People with a few roles each, created straight in the store, 50 at a time (one group commit each). */
async function seedUsers(databaseUrl: string): Promise<string[]> {
  const store = Store.open(databaseUrl);
  try {
    const ids: string[] = [];
    for (let start = 0; start < USERS; start += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, USERS - start) }, (_, k) => {
        const i = start + k;
        return registerUser(store, systemClock, {
          username: `bench-user-${String(i).padStart(5, '0')}`, email: `bench-user-${i}@example.org`,
          roles: [{ role: 'experimenter', experiment: null }, { role: 'participant', experiment: `exp-${i % 20}` }, { role: `${TOOL}:viewer`, experiment: null }],
        });
      }));
      ids.push(...batch.map((u) => u.id));
    }
    return ids;
  } finally {
    await store.close();
  }
}

const DISCOVERY_DOCUMENT = '/auth/realms/opencity/.well-known/openid-configuration';
const rolesPath = (id: string): string => `/permissions/users/${id}/roles`;

async function measureStore(store: StoreKind): Promise<{ server: BenchServer; ids: string[]; token: string }> {
  const server = await startServer({ store });
  try {
    const ids = await seedUsers(server.databaseUrl);
    const token = await server.clientToken(TOOL, ['accounts-permissions:readGlobalRoles', 'accounts-permissions:readLocalRoles']);
    const check = await fetch(`${server.url}${rolesPath(ids[0] as string)}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await check.text();
    if (check.status !== 200 || JSON.parse(body).length !== 3) throw new Error(`unexpected answer before the load: ${check.status} ${body}`);
    return { server, ids, token };
  } catch (error) {
    await server.close();
    throw error;
  }
}

interface StoreFigures {
  roles: LoadResult;
  bare: LoadResult;
  /**
   * The same server's static JSON route (the OIDC discovery document) with the same
   * token: what any Fastify route costs on this machine now, without a query.
   */
  staticRoute: LoadResult;
}

async function rolesLoad(store: StoreKind): Promise<StoreFigures> {
  const { server, ids, token } = await measureStore(store);
  const headers = { authorization: `Bearer ${token}` };
  const requests = (i: number): RequestSpec => ({ path: rolesPath(ids[i % ids.length] as string) });
  try {
    const vsBare = await measurePair(
      () => load({ url: server.url, headers, requests, connections: CONNECTIONS }),
      () => bareBaseline({ status: 200, body: SAMPLE_BODY, path: rolesPath(ids[0] as string), headers, requests, connections: CONNECTIONS }),
    );
    const staticRoute = await load({ url: `${server.url}${DISCOVERY_DOCUMENT}`, headers, connections: CONNECTIONS });
    return { roles: vsBare.result, bare: vsBare.baseline, staticRoute };
  } finally {
    await server.close();
  }
}

const permissions: Scenario = {
  name: 'permissions',
  description: `GET /permissions/users/{id}/roles with a tool's token over ${USERS} users (3 roles each), ${CONNECTIONS} connections, SQLite and PostgreSQL, against bare node:http answering the same JSON.`,
  async run(): Promise<ResultRow[]> {
    const sqlite = await rolesLoad('sqlite');
    const postgres = await rolesLoad('postgres');
    return [
      {
        name: `GET user roles, SQLite (${CONNECTIONS} conns)`, result: sqlite.roles, baselineName: 'bare node:http, same 200 JSON', baseline: sqlite.bare,
        goal: '>= 8,000/s, no errors', met: sqlite.roles.rps >= 8000 && sqlite.roles.errors === 0,
      },
      {
        name: `GET user roles, SQLite (${CONNECTIONS} conns)`, result: sqlite.roles, baselineName: 'same server, static JSON route', baseline: sqlite.staticRoute,
        goal: 'reported', met: sqlite.roles.errors === 0,
      },
      {
        name: `GET user roles, PostgreSQL (${CONNECTIONS} conns)`, result: postgres.roles, baselineName: 'bare node:http, same 200 JSON', baseline: postgres.bare,
        goal: 'reported; no errors', met: postgres.roles.errors === 0,
      },
    ];
  },
};

export default permissions;
