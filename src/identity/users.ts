import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import { badRequest } from '../domain/errors.js';
import { passwordProblem } from '../domain/password.js';
import { createUser, type RoleAssignment } from '../storage/repositories/principals.js';
import type { Store } from '../storage/store.js';
import { hashPassword } from './secrets.js';

export interface UserSpec {
  username: string;
  email: string | null;
  password?: string;
  roles?: RoleAssignment[];
}

/** Creates a person's account; the password is kept only as an scrypt hash. */
export async function registerUser(store: Store, clock: Clock, spec: UserSpec): Promise<{ id: string; name: string }> {
  const problem = spec.password === undefined ? undefined : passwordProblem(spec.password);
  if (problem) throw badRequest(problem);
  const id = randomUUID();
  await createUser(store, {
    id, username: spec.username, email: spec.email, passwordHash: spec.password ? await hashPassword(spec.password) : null, roles: spec.roles ?? [],
  }, clock.now());
  return { id, name: spec.username };
}
