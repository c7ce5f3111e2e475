import { CompiledQuery } from 'kysely';
import type { Store } from '../store.js';
import type { RoleAssignment, UserRecord } from './principals.js';

/**
 * The lookups of the token endpoint. Each returns a principal together with its
 * roles in ONE query (a join), because a client_credentials grant must cost as
 * little as possible: roles are read when the token is issued, every time.
 */

export interface ClientWithAccount {
  id: string;
  name: string | null;
  /** SHA-256 (hex) of the secret; null for a public client. */
  secretDigest: string | null;
  /** The client's service-account user. */
  account: UserRecord;
  roles: RoleAssignment[];
}

export interface UserWithRoles {
  user: UserRecord;
  roles: RoleAssignment[];
}

interface JoinedRow {
  id: string;
  username: string;
  email: string | null;
  password_hash: string | null;
  service_account_of: string | null;
  role: string | null;
  experiment: string | null;
}

const rolesOf = (rows: JoinedRow[]): RoleAssignment[] =>
  rows.filter((r) => r.role !== null).map((r) => ({ role: r.role as string, experiment: r.experiment ? r.experiment : null }));

const userOf = (r: JoinedRow): UserRecord => ({
  id: r.id, username: r.username, email: r.email, passwordHash: r.password_hash, serviceAccountOf: r.service_account_of,
});

interface ClientRow extends JoinedRow {
  client_name: string | null;
  secret_digest: string | null;
}

/**
 * The lookup of every client_credentials grant, compiled once per store:
 * building and compiling the query each time would cost more CPU than running it.
 */
const clientLookups = new WeakMap<Store, string>();

function clientLookupSql(store: Store): string {
  let text = clientLookups.get(store);
  if (text === undefined) {
    text = store.read.selectFrom('clients as c')
      .innerJoin('users as u', 'u.id', 'c.service_account_user_id')
      .leftJoin('role_assignments as r', 'r.user_id', 'u.id')
      .select(['c.name as client_name', 'c.secret_digest', 'u.id', 'u.username', 'u.email', 'u.password_hash', 'u.service_account_of', 'r.role', 'r.experiment'])
      .where('c.id', '=', '')
      .orderBy('r.role').orderBy('r.experiment')
      .compile().sql;
    clientLookups.set(store, text);
  }
  return text;
}

/** A client, its service-account user and that user's roles. */
export async function findClientWithAccount(store: Store, clientId: string): Promise<ClientWithAccount | undefined> {
  const { rows } = await store.read.executeQuery<ClientRow>(CompiledQuery.raw(clientLookupSql(store), [clientId]));
  const first = rows[0];
  if (!first) return undefined;
  return { id: clientId, name: first.client_name, secretDigest: first.secret_digest, account: userOf(first), roles: rolesOf(rows) };
}

function userQuery(store: Store) {
  return store.read.selectFrom('users as u')
    .leftJoin('role_assignments as r', 'r.user_id', 'u.id')
    .select(['u.id', 'u.username', 'u.email', 'u.password_hash', 'u.service_account_of', 'r.role', 'r.experiment'])
    .orderBy('r.role').orderBy('r.experiment');
}

const withRoles = (rows: JoinedRow[]): UserWithRoles | undefined => {
  const first = rows[0];
  return first && { user: userOf(first), roles: rolesOf(rows) };
};

export async function findUserWithRoles(store: Store, userId: string): Promise<UserWithRoles | undefined> {
  return withRoles(await userQuery(store).where('u.id', '=', userId).execute());
}

/**
 * A person signing in by user name or, failing that, by e-mail address when
 * exactly one person has it. Service accounts never sign in with a password.
 */
export async function findPersonByLogin(store: Store, login: string): Promise<UserWithRoles | undefined> {
  const byName = withRoles(await userQuery(store).where('u.username', '=', login).where('u.service_account_of', 'is', null).execute());
  if (byName || !login.includes('@')) return byName;
  const byEmail = await store.read.selectFrom('users').select('id').where('email', '=', login).where('service_account_of', 'is', null).limit(2).execute();
  return byEmail.length === 1 ? findUserWithRoles(store, (byEmail[0] as { id: string }).id) : undefined;
}
