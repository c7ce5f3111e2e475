import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { createClient, findClient, type ClientRecord, type RoleAssignment } from '../storage/repositories/principals.js';
import type { Store } from '../storage/store.js';
import { newSecret, secretDigest, secretMatches } from './secrets.js';

export interface ClientCredentials {
  client_id: string;
  secret: string;
}

export interface ClientSpec {
  clientId?: string;
  name?: string | null;
  uri?: string | null;
  redirectUris?: string[];
  roles?: RoleAssignment[];
  /** A public client (browser app) has no secret. */
  isPublic?: boolean;
  /** The secret is shown after the creation commits (a start's banner): the store records it as not shown until told (./bootstrap.ts). */
  showLater?: boolean;
}

/** Creates a client with its service account and a fresh secret, shown to the caller once. */
export async function registerClient(store: Store, clock: Clock, spec: ClientSpec): Promise<ClientCredentials> {
  const clientId = spec.clientId ?? randomUUID();
  const secret = spec.isPublic ? '' : newSecret();
  await createClient(store, {
    id: clientId,
    name: spec.name ?? null,
    uri: spec.uri ?? null,
    secretDigest: spec.isPublic ? null : secretDigest(secret),
    serviceAccountUserId: randomUUID(),
    redirectUris: spec.redirectUris ?? [],
    roles: spec.roles ?? [],
    secretUnshown: spec.showLater === true,
  }, clock.now());
  return { client_id: clientId, secret };
}

/** The client when the secret matches; undefined otherwise (the same answer whether or not it exists). */
export async function authenticateClient(store: Store, clientId: string, secret: string): Promise<ClientRecord | undefined> {
  const client = await findClient(store, clientId);
  const ok = secretMatches(secret, client?.secretDigest ?? null);
  return ok ? client : undefined;
}
