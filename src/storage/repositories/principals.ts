import { sql, type CompiledQuery } from 'kysely';
import type { Store } from '../store.js';
import type { Executor } from '../ports.js';

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
  /** Its secret is shown only once the creation has committed: recorded as not shown until then. */
  secretUnshown?: boolean;
}

/** Creates a client and its service-account user (`service-account-<clientId>`), as Keycloak does. */
export async function createClient(store: Store, client: NewClient, now: number): Promise<void> {
  await store.writes.run(async (trx) => {
    await trx.insertInto('clients').values({
      id: client.id, name: client.name, uri: client.uri, secret_digest: client.secretDigest,
      service_account_user_id: client.serviceAccountUserId, created_at: now, secret_unshown: client.secretUnshown ? 1 : 0,
    }).execute();
    await insertUser(trx, {
      id: client.serviceAccountUserId, username: `service-account-${client.id}`.toLowerCase(), email: null, passwordHash: null,
      serviceAccountOf: client.id, roles: client.roles ?? [],
    }, now);
    await replaceRedirects(trx, client.id, client.redirectUris ?? []);
  });
}

export async function setClientSecretDigest(store: Store, clientId: string, digest: string): Promise<void> {
  // Whoever sets a secret knows it.
  await store.writes.run((trx) => trx.updateTable('clients').set({ secret_digest: digest, secret_unshown: 0 }).where('id', '=', clientId).execute());
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

// ---- permissions interface -------------------------------------------------

/** PostgreSQL text cannot hold NUL: a key containing one names nothing, on either store. */
const matchesNothing = (key: string): boolean => key.includes('\u0000');

type UserRoleRow = { role: string | null; experiment: string | null };

/**
 * The hot read of the permissions interface, compiled once per store: building
 * the query on every request cost as much as running it.
 */
const userRolesQueries = new WeakMap<Store, CompiledQuery<UserRoleRow>>();

function userRolesQuery(store: Store): CompiledQuery<UserRoleRow> {
  let query = userRolesQueries.get(store);
  if (!query) {
    query = store.read.selectFrom('users')
      .leftJoin('role_assignments', 'role_assignments.user_id', 'users.id')
      .select(['role_assignments.role as role', 'role_assignments.experiment as experiment'])
      .where('users.id', '=', '')
      .compile();
    userRolesQueries.set(store, query);
  }
  return query;
}

/**
 * A user's direct role assignments, or undefined when there is no such user:
 * one indexed query (the users key joined to the assignments' key prefix).
 */
export async function findUserRoles(store: Store, userId: string): Promise<RoleAssignment[] | undefined> {
  if (matchesNothing(userId)) return undefined;
  const query: CompiledQuery<UserRoleRow> = { ...userRolesQuery(store), parameters: [userId] };
  const { rows } = await store.read.executeQuery(query);
  if (rows.length === 0) return undefined;
  const out: RoleAssignment[] = [];
  for (const r of rows) if (r.role !== null) out.push({ role: r.role, experiment: r.experiment ? r.experiment : null });
  return out;
}

export type GrantOutcome = 'granted' | 'unchanged' | 'no-user';

/** Assigns a role when the user exists; assigning it again changes nothing. One write job. */
export async function grantRoleToUser(store: Store, userId: string, role: RoleAssignment, now: number): Promise<GrantOutcome> {
  if (matchesNothing(userId)) return 'no-user';
  return store.writes.run(async (trx) => {
    const user = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!user) return 'no-user';
    const result = await trx.insertInto('role_assignments')
      .values({ user_id: userId, role: role.role, experiment: role.experiment ?? '', created_at: now })
      .onConflict((oc) => oc.doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0 ? 'granted' : 'unchanged';
  });
}

export type RevokeOutcome = 'revoked' | 'absent' | 'no-user';

/** Removes a role assignment when the user exists. One write job. */
export async function revokeRoleFromUser(store: Store, userId: string, role: RoleAssignment): Promise<RevokeOutcome> {
  if (matchesNothing(userId)) return 'no-user';
  return store.writes.run(async (trx) => {
    const user = await trx.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
    if (!user) return 'no-user';
    const result = await trx.deleteFrom('role_assignments')
      .where('user_id', '=', userId).where('role', '=', role.role).where('experiment', '=', role.experiment ?? '')
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0 ? 'revoked' : 'absent';
  });
}

/** People (not service accounts) whose address is this one, ignoring case; sorted by name. */
export async function findPeopleByEmail(store: Store, email: string): Promise<UserRecord[]> {
  if (matchesNothing(email)) return [];
  const rows = await store.read.selectFrom('users').selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('service_account_of', 'is', null)
    .orderBy('username').orderBy('id')
    .execute();
  return rows.map(toUser);
}

/** A client's redirect URIs in their order, or undefined when there is no such client (one query). */
export async function findClientRedirectUris(store: Store, clientId: string): Promise<string[] | undefined> {
  if (matchesNothing(clientId)) return undefined;
  const rows = await store.read.selectFrom('clients')
    .leftJoin('client_redirect_uris', 'client_redirect_uris.client_id', 'clients.id')
    .select(['client_redirect_uris.uri as uri'])
    .where('clients.id', '=', clientId)
    .orderBy('client_redirect_uris.position')
    .execute();
  if (rows.length === 0) return undefined;
  return rows.flatMap((r) => (r.uri === null ? [] : [r.uri]));
}

/** Replaces all of a client's redirect URIs in one write job; false when there is no such client. */
export async function replaceClientRedirectUris(store: Store, clientId: string, uris: string[]): Promise<boolean> {
  if (matchesNothing(clientId)) return false;
  return store.writes.run(async (trx) => {
    const client = await trx.selectFrom('clients').select('id').where('id', '=', clientId).executeTakeFirst();
    if (!client) return false;
    await replaceRedirects(trx, clientId, uris);
    return true;
  });
}

/** Is the id of a new client (or of its service-account user) already taken? */
export async function clientIdTaken(store: Store, clientId: string): Promise<boolean> {
  const client = await store.read.selectFrom('clients').select('id').where('id', '=', clientId).executeTakeFirst();
  if (client) return true;
  const user = await store.read.selectFrom('users').select('id').where('username', '=', `service-account-${clientId}`.toLowerCase()).executeTakeFirst();
  return user !== undefined;
}

/** Did a write fail because a key is taken (a concurrent creation of the same id)? */
export function isDuplicateKey(store: Store, error: unknown): boolean {
  return store.dialect.isUniqueViolation(error);
}
