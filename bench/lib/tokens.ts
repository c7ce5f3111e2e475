import { systemClock } from '../../src/domain/clock.js';
import { registerClient } from '../../src/identity/clients.js';
import { KeyRing } from '../../src/identity/key-ring.js';
import { REALM_PATH } from '../../src/identity/routes.js';
import { secretDigest, newSecret } from '../../src/identity/secrets.js';
import { ACCESS_TOKEN_TTL_S, issueAccessToken } from '../../src/identity/tokens.js';
import { registerUser } from '../../src/identity/users.js';
import { findClient, findUserById, findUserByUsername, setClientSecretDigest, type RoleAssignment } from '../../src/storage/repositories/principals.js';
import { upsertSite } from '../../src/storage/repositories/sites.js';
import { Store } from '../../src/storage/store.js';

/** A global role name, or a role scoped to an experiment. */
export type RoleSpec = string | RoleAssignment;

const asAssignment = (r: RoleSpec): RoleAssignment => (typeof r === 'string' ? { role: r, experiment: null } : r);

async function withStore<T>(databaseUrl: string, fn: (store: Store) => Promise<T>): Promise<T> {
  // The server has migrated the database already; this process only reads and adds principals.
  const store = Store.open(databaseUrl);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Credentials of `clientId`: created with `roles` when missing; when it exists,
 * its secret is replaced (secrets are shown only once, so we make a new one).
 */
export async function clientCredentials(databaseUrl: string, clientId: string, roles: RoleSpec[] = []): Promise<{ clientId: string; secret: string }> {
  return withStore(databaseUrl, async (store) => {
    if (!(await findClient(store, clientId))) {
      const created = await registerClient(store, systemClock, { clientId, roles: roles.map(asAssignment) });
      return { clientId, secret: created.secret };
    }
    const secret = newSecret();
    await setClientSecretDigest(store, clientId, secretDigest(secret));
    return { clientId, secret };
  });
}

/** Asks the server's own token endpoint (client_credentials), exactly as a client would. */
export async function requestToken(serverUrl: string, clientId: string, secret: string): Promise<string> {
  const res = await fetch(`${serverUrl}${REALM_PATH}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** A service-account token of `clientId` (valid ACCESS_TOKEN_TTL_S seconds: take a new one per load run). */
export async function clientToken(serverUrl: string, databaseUrl: string, clientId: string, roles: RoleSpec[] = []): Promise<string> {
  const creds = await clientCredentials(databaseUrl, clientId, roles);
  return requestToken(serverUrl, creds.clientId, creds.secret);
}

/** Creates (or updates) the site and returns its client's token: what a real site pushes with. */
export async function siteToken(serverUrl: string, databaseUrl: string, site: string, centre: { latitude: number; longitude: number; quota?: number | null } = { latitude: 43.46232, longitude: -3.80998 }): Promise<string> {
  await withStore(databaseUrl, (store) => upsertSite(store, {
    id: site, name: site, type: 'city', latitude: centre.latitude, longitude: centre.longitude,
    countryCode: null, country: null, city: site, quota: centre.quota ?? null,
  }, systemClock.now()));
  return clientToken(serverUrl, databaseUrl, `ocsite-${site}`, ['ocsite']);
}

/**
 * A person's token, issued to `clientId` with the server's own signing key (read
 * from the shared store), for scenarios that need a user (visibility rules).
 */
export async function userToken(serverUrl: string, databaseUrl: string, username: string, roles: RoleSpec[] = [], clientId = 'opencity-observatory'): Promise<string> {
  return withStore(databaseUrl, async (store) => {
    let user = await findUserByUsername(store, username);
    if (!user) {
      const created = await registerUser(store, systemClock, { username, email: `${username}@example.org`, roles: roles.map(asAssignment) });
      user = await findUserById(store, created.id);
    }
    if (!user) throw new Error(`could not create user ${username}`);
    const keys = new KeyRing(store, systemClock, ACCESS_TOKEN_TTL_S * 2000);
    await keys.load();
    const issued = await issueAccessToken({ store, keys, clock: systemClock, issuer: `${serverUrl}${REALM_PATH}` }, { user, clientId, scope: 'openid profile email' });
    return issued.accessToken;
  });
}
