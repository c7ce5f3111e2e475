/** Role rules of the permissions model (DESIGN.md, "Permissions"). */

export const ROLE_NAME = /^[a-zA-Z][a-zA-Z0-9_-]*(:[a-zA-Z0-9_-]+)?$/;

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
  return ALIASES[role] ?? role;
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
    for (const implied of COMPOSITES[role] ?? []) out.add(implied);
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
