import type { Clock } from '../domain/clock.js';
import { findClient, getRedirectUris, setClientSecretDigest, setRedirectUris } from '../storage/repositories/principals.js';
import { recordSecretShown, secretNeverShown } from '../storage/repositories/client-secret-shown.js';
import type { Store } from '../storage/store.js';
import { registerClient } from './clients.js';
import { secretDigest } from './secrets.js';

export const ADMIN_CLIENT_ID = 'opencity-admin';
export const OBSERVATORY_CLIENT_ID = 'opencity-observatory';

/** Every permission of the permissions interface (`accounts-permissions:*`). */
export const ACCOUNTS_PERMISSIONS = [
  'readGlobalRoles', 'readLocalRoles', 'editGlobalRoles', 'editLocalRoles', 'listUsers', 'findUserByEmail',
  'createClient', 'readClientRedirectUris', 'editClientRedirectUris',
].map((p) => `accounts-permissions:${p}`);

/**
 * Makes sure the bootstrap clients exist: `opencity-admin` (every accounts-permissions
 * permission) and the observatory's public client. Returns the admin secret when it
 * was generated now, so that it is shown exactly once.
 */
export async function ensureBootstrapClients(store: Store, clock: Clock, publicUrl: string, adminSecret: string | undefined): Promise<string | undefined> {
  let generated: string | undefined;
  const admin = await findClient(store, ADMIN_CLIENT_ID);
  if (!admin) {
    const creds = await registerClient(store, clock, {
      clientId: ADMIN_CLIENT_ID, name: 'OpenCity administration', roles: ACCOUNTS_PERMISSIONS.map((role) => ({ role, experiment: null })),
      // Printed after this commit: until the start says it did (adminSecretShown), the store knows it was not.
      showLater: !adminSecret,
    }).catch(() => undefined); // another process may have created it first
    if (creds && !adminSecret) generated = creds.secret;
  }
  if (adminSecret) await setClientSecretDigest(store, ADMIN_CLIENT_ID, secretDigest(adminSecret));
  const home = `${publicUrl}/`;
  if (!(await findClient(store, OBSERVATORY_CLIENT_ID))) {
    await registerClient(store, clock, {
      clientId: OBSERVATORY_CLIENT_ID, name: 'OpenCity observatory', isPublic: true, redirectUris: [home],
    }).catch(() => undefined);
  } else {
    // The page signs in from wherever PUBLIC_URL now says it is served; earlier addresses stay allowed.
    const uris = await getRedirectUris(store, OBSERVATORY_CLIENT_ID);
    if (!uris.includes(home)) await setRedirectUris(store, OBSERVATORY_CLIENT_ID, [...uris, home]);
  }
  return generated;
}

/**
 * The admin client exists, but the secret generated for it was never shown: a
 * first start ended between its commit and printing it. `opencity client
 * reset-secret opencity-admin` gives it a new one.
 */
export const adminSecretNeverShown = (store: Store): Promise<boolean> => secretNeverShown(store, ADMIN_CLIENT_ID);

/** The generated admin secret has been printed. */
export const adminSecretShown = (store: Store): Promise<void> => recordSecretShown(store, ADMIN_CLIENT_ID);
