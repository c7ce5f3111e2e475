/** Role rules of the permissions model (DESIGN.md, "Permissions"). */

import { notFound, unprocessable } from './errors.js';

export const ROLE_NAME = /^[a-zA-Z][a-zA-Z0-9_-]*(:[a-zA-Z0-9_-]+)?$/;

/** Role names are identifiers, not text: longer ones are refused like malformed ones. */
export const ROLE_NAME_MAX_LENGTH = 255;

/**
 * Experiment ids as the platform knows them (UUIDs, object ids): they also appear
 * as a segment of experimenters' asset URNs, so no `:` and no spaces.
 */
export const EXPERIMENT_ID = /^[A-Za-z0-9_.~-]{1,128}$/;

/** Global roles that only mean something within one experiment: assigning one needs its id. */
const NEEDS_EXPERIMENT = new Set(['participant']);

/** Global roles that stand for other roles (composites, as in Keycloak). */
const COMPOSITES: Record<string, string[]> = {
  administrator: ['scenarios:admin', 'site-manager:role-admin'],
};

/** Spellings that name the same role. */
const ALIASES: Record<string, string> = {
  administator: 'administrator',
  'site-manager': 'sitemanager',
};

export function canonicalRole(role: string): string {
  // Own keys only: a role named `toString` or `constructor` is a name like any other.
  return Object.hasOwn(ALIASES, role) ? ALIASES[role] as string : role;
}

export function isToolRole(role: string): boolean {
  return role.includes(':');
}

/** `tool:perm` → ['tool', 'perm']. */
export function splitToolRole(role: string): [string, string] {
  const i = role.indexOf(':');
  return [role.slice(0, i), role.slice(i + 1)];
}

/** Roles the assigned ones bring with them, composites expanded, without duplicates. */
export function expandRoles(assigned: readonly string[]): string[] {
  const out = new Set<string>();
  for (const r of assigned) {
    const role = canonicalRole(r);
    out.add(role);
    for (const implied of Object.hasOwn(COMPOSITES, role) ? COMPOSITES[role] as string[] : []) out.add(implied);
  }
  return [...out];
}

export interface TokenRoleClaims {
  realmRoles: string[];
  resourceAccess: Record<string, { roles: string[] }>;
}

/** Splits expanded roles into Keycloak's realm roles and per-tool (client) roles. */
export function roleClaims(assigned: readonly string[]): TokenRoleClaims {
  const realmRoles: string[] = [];
  const resourceAccess: Record<string, { roles: string[] }> = {};
  for (const role of expandRoles(assigned)) {
    if (isToolRole(role)) {
      const [tool, perm] = splitToolRole(role);
      (resourceAccess[tool] ??= { roles: [] }).roles.push(perm);
    } else {
      realmRoles.push(role);
    }
  }
  return { realmRoles, resourceAccess };
}

export function requiresExperiment(role: string): boolean {
  return NEEDS_EXPERIMENT.has(canonicalRole(role));
}

/** A role as the permissions interface names it: canonical name, optionally scoped to an experiment. */
export interface RoleRef {
  role: string;
  experiment: string | null;
}

export const ROLE_FORMAT_MESSAGE = 'The requested role does not adhere to the required format.';
export const EXPERIMENT_REQUIRED_MESSAGE = 'An Experiment ID is required for the given role, but was not supplied.';

/** The canonical name of a role named in a request; a malformed name is 404 (the spec's "role name not valid"). */
export function parseRoleName(name: string): string {
  if (name.length > ROLE_NAME_MAX_LENGTH || !ROLE_NAME.test(name)) throw notFound(ROLE_FORMAT_MESSAGE);
  return canonicalRole(name);
}

/**
 * The experiment an assignment is scoped to (null: none). An empty value counts as
 * absent. Only global roles can be scoped: a tool's permissions are the tool's business.
 */
export function parseExperiment(role: string, experiment: string | undefined | null): string | null {
  const given = experiment === undefined || experiment === null || experiment === '' ? null : experiment;
  if (given === null) {
    if (requiresExperiment(role)) throw unprocessable(EXPERIMENT_REQUIRED_MESSAGE);
    return null;
  }
  if (isToolRole(role)) throw unprocessable(`The tool permission ${role} cannot be restricted to an experiment.`);
  if (!EXPERIMENT_ID.test(given)) {
    throw unprocessable('The experiment id is not valid: 1 to 128 letters, digits, "_", ".", "~" or "-".');
  }
  return given;
}
