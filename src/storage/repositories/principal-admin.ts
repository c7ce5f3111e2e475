import { clientPrincipal } from '../../domain/sign-in-addresses.js';
import type { Store } from '../store.js';

/**
 * What operators do to clients and users from the command line: list them, replace a client's
 * secret or a user's password, remove a client with its service account. Plain statements that
 * run unchanged on both stores.
 */

export interface ClientSummary {
  id: string;
  name: string | null;
  /** Whether it has a secret (a public client, a browser app, has none). */
  confidential: boolean;
  roles: Array<{ role: string; experiment: string | null }>;
  createdAt: number;
}

export interface UserSummary {
  id: string;
  username: string;
  email: string | null;
  roles: Array<{ role: string; experiment: string | null }>;
  createdAt: number;
}

async function rolesByUser(store: Store, userIds: string[]): Promise<Map<string, Array<{ role: string; experiment: string | null }>>> {
  const byUser = new Map<string, Array<{ role: string; experiment: string | null }>>();
  if (userIds.length === 0) return byUser;
  const rows = await store.read.selectFrom('role_assignments').select(['user_id', 'role', 'experiment'])
    .where('user_id', 'in', userIds).orderBy('user_id').orderBy('role').orderBy('experiment').execute();
  for (const r of rows) {
    const list = byUser.get(r.user_id) ?? [];
    list.push({ role: r.role, experiment: r.experiment === '' ? null : r.experiment });
    byUser.set(r.user_id, list);
  }
  return byUser;
}

/** Every client with its service account's roles, by id. */
export async function listClientSummaries(store: Store): Promise<ClientSummary[]> {
  const rows = await store.read.selectFrom('clients').select(['id', 'name', 'secret_digest', 'service_account_user_id', 'created_at']).orderBy('id').execute();
  const roles = await rolesByUser(store, rows.map((r) => r.service_account_user_id));
  return rows.map((r) => ({
    id: r.id, name: r.name, confidential: r.secret_digest !== null, roles: roles.get(r.service_account_user_id) ?? [], createdAt: Number(r.created_at),
  }));
}

/** People (not service accounts) with their roles, by name. */
export async function listUserSummaries(store: Store): Promise<UserSummary[]> {
  const rows = await store.read.selectFrom('users').select(['id', 'username', 'email', 'created_at'])
    .where('service_account_of', 'is', null).orderBy('username').orderBy('id').execute();
  const roles = await rolesByUser(store, rows.map((r) => r.id));
  return rows.map((r) => ({ id: r.id, username: r.username, email: r.email, roles: roles.get(r.id) ?? [], createdAt: Number(r.created_at) }));
}

/**
 * Replaces a confidential client's secret digest; false when there is no such client. Its
 * refresh tokens go with the old secret, so nothing issued under it can be renewed.
 */
export async function replaceClientSecret(store: Store, clientId: string, digest: string): Promise<boolean> {
  return store.writes.run(async (trx) => {
    // The new secret is shown by whoever asked for it.
    const result = await trx.updateTable('clients').set({ secret_digest: digest, secret_unshown: 0 }).where('id', '=', clientId).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx.deleteFrom('refresh_tokens').where('client_id', '=', clientId).execute();
    return true;
  });
}

/** Removes a client, its service account, their roles, redirect URIs, grants and sign-in addresses; false when there is none. */
export async function removeClientRecord(store: Store, clientId: string): Promise<boolean> {
  return store.writes.run(async (trx) => {
    const client = await trx.selectFrom('clients').select('service_account_user_id').where('id', '=', clientId).executeTakeFirst();
    if (!client) return false;
    await trx.deleteFrom('refresh_tokens').where('client_id', '=', clientId).execute();
    await trx.deleteFrom('authorization_codes').where('client_id', '=', clientId).execute();
    await trx.deleteFrom('client_redirect_uris').where('client_id', '=', clientId).execute();
    await trx.deleteFrom('sign_in_addresses').where('principal', '=', clientPrincipal(clientId)).execute();
    await trx.deleteFrom('role_assignments').where('user_id', '=', client.service_account_user_id).execute();
    await trx.deleteFrom('clients').where('id', '=', clientId).execute();
    await trx.deleteFrom('users').where('id', '=', client.service_account_user_id).execute();
    return true;
  });
}

/** Replaces a person's password hash; false when there is no such person (service accounts have none). */
export async function replaceUserPassword(store: Store, username: string, passwordHash: string): Promise<boolean> {
  return store.writes.run(async (trx) => {
    const result = await trx.updateTable('users').set({ password_hash: passwordHash })
      .where('username', '=', username).where('service_account_of', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  });
}
