import type { Store } from '../store.js';
import type { Executor } from '../dialects/adapter.js';

export interface UserRecord {
  id: string;
  username: string;
  email: string | null;
  passwordHash: string | null;
  serviceAccountOf: string | null;
}

export interface ClientRecord {
  id: string;
  name: string | null;
  uri: string | null;
  secretDigest: string | null;
  serviceAccountUserId: string;
}

export interface RoleAssignment {
  role: string;
  experiment: string | null;
}

const toUser = (r: { id: string; username: string; email: string | null; password_hash: string | null; service_account_of: string | null }): UserRecord => ({
  id: r.id, username: r.username, email: r.email, passwordHash: r.password_hash, serviceAccountOf: r.service_account_of,
});

export async function findUserById(store: Store, id: string): Promise<UserRecord | undefined> {
  const row = await store.read.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toUser(row);
}

export async function findUserByUsername(store: Store, username: string): Promise<UserRecord | undefined> {
  const row = await store.read.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
  return row && toUser(row);
}

export async function findUsersByEmail(store: Store, email: string): Promise<UserRecord[]> {
  const rows = await store.read.selectFrom('users').selectAll().where('email', '=', email).orderBy('username').execute();
  return rows.map(toUser);
}

/** Human users (not service accounts), sorted by name. */
export async function listUsers(store: Store, offset: number, count: number): Promise<UserRecord[]> {
  const rows = await store.read.selectFrom('users').selectAll().where('service_account_of', 'is', null)
    .orderBy('username').orderBy('id').limit(count).offset(offset).execute();
  return rows.map(toUser);
}

export async function findClient(store: Store, id: string): Promise<ClientRecord | undefined> {
  const row = await store.read.selectFrom('clients').selectAll().where('id', '=', id).executeTakeFirst();
  return row && { id: row.id, name: row.name, uri: row.uri, secretDigest: row.secret_digest, serviceAccountUserId: row.service_account_user_id };
}

export interface NewUser {
  id: string;
  username: string;
  email: string | null;
  passwordHash: string | null;
  serviceAccountOf?: string | null;
  roles?: RoleAssignment[];
}

async function insertUser(trx: Executor, user: NewUser, now: number): Promise<void> {
  await trx.insertInto('users').values({
    id: user.id, username: user.username, email: user.email, password_hash: user.passwordHash,
    service_account_of: user.serviceAccountOf ?? null, created_at: now,
  }).execute();
  for (const r of user.roles ?? []) await grant(trx, user.id, r, now);
}

async function grant(trx: Executor, userId: string, r: RoleAssignment, now: number): Promise<void> {
  await trx.insertInto('role_assignments').values({ user_id: userId, role: r.role, experiment: r.experiment ?? '', created_at: now })
    .onConflict((oc) => oc.doNothing()).execute();
}

export async function createUser(store: Store, user: NewUser, now: number): Promise<void> {
  await store.writes.run((trx) => insertUser(trx, user, now));
}

export interface NewClient {
  id: string;
  name: string | null;
  uri: string | null;
  secretDigest: string | null;
  serviceAccountUserId: string;
  redirectUris?: string[];
  roles?: RoleAssignment[];
}

/** Creates a client and its service-account user (`service-account-<clientId>`), as Keycloak does. */
export async function createClient(store: Store, client: NewClient, now: number): Promise<void> {
  await store.writes.run(async (trx) => {
    await trx.insertInto('clients').values({
      id: client.id, name: client.name, uri: client.uri, secret_digest: client.secretDigest,
      service_account_user_id: client.serviceAccountUserId, created_at: now,
    }).execute();
    await insertUser(trx, {
      id: client.serviceAccountUserId, username: `service-account-${client.id}`.toLowerCase(), email: null, passwordHash: null,
      serviceAccountOf: client.id, roles: client.roles ?? [],
    }, now);
    await replaceRedirects(trx, client.id, client.redirectUris ?? []);
  });
}

export async function setClientSecretDigest(store: Store, clientId: string, digest: string): Promise<void> {
  await store.writes.run((trx) => trx.updateTable('clients').set({ secret_digest: digest }).where('id', '=', clientId).execute());
}

async function replaceRedirects(trx: Executor, clientId: string, uris: string[]): Promise<void> {
  await trx.deleteFrom('client_redirect_uris').where('client_id', '=', clientId).execute();
  if (uris.length > 0) {
    await trx.insertInto('client_redirect_uris').values(uris.map((uri, position) => ({ client_id: clientId, position, uri }))).execute();
  }
}

/** Full, atomic replacement of a client's redirect URIs. */
export async function setRedirectUris(store: Store, clientId: string, uris: string[]): Promise<void> {
  await store.writes.run((trx) => replaceRedirects(trx, clientId, uris));
}

export async function getRedirectUris(store: Store, clientId: string): Promise<string[]> {
  const rows = await store.read.selectFrom('client_redirect_uris').select('uri').where('client_id', '=', clientId).orderBy('position').execute();
  return rows.map((r) => r.uri);
}

export async function listRoles(store: Store, userId: string): Promise<RoleAssignment[]> {
  const rows = await store.read.selectFrom('role_assignments').select(['role', 'experiment']).where('user_id', '=', userId).orderBy('role').orderBy('experiment').execute();
  return rows.map((r) => ({ role: r.role, experiment: r.experiment === '' ? null : r.experiment }));
}

export async function grantRole(store: Store, userId: string, role: RoleAssignment, now: number): Promise<void> {
  await store.writes.run((trx) => grant(trx, userId, role, now));
}

export async function revokeRole(store: Store, userId: string, role: RoleAssignment): Promise<void> {
  await store.writes.run((trx) => trx.deleteFrom('role_assignments')
    .where('user_id', '=', userId).where('role', '=', role.role).where('experiment', '=', role.experiment ?? '').execute());
}
