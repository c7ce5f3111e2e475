import type { Caller } from '../domain/caller.js';

/** The caller the domain knows (src/domain/caller.ts), from verified claims. */
export function callerFromClaims(claims: Record<string, unknown>): Caller {
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const realm = claims.realm_access as { roles?: unknown } | undefined;
  const resource = (claims.resource_access ?? {}) as Record<string, { roles?: unknown }>;
  const permissions: Record<string, string[]> = {};
  if (resource && typeof resource === 'object') {
    for (const [tool, value] of Object.entries(resource)) {
      if (Array.isArray(value?.roles)) permissions[tool] = value.roles.filter((r): r is string => typeof r === 'string');
    }
  }
  const username = str(claims.preferred_username);
  const explicitClient = str(claims.clientId) ?? str(claims.client_id);
  const clientId = explicitClient ?? (username?.startsWith('service-account-') ? str(claims.azp) : undefined);
  const experimentRoles = Array.isArray(claims.experiment_roles)
    ? (claims.experiment_roles as Array<{ role?: unknown; experiment?: unknown }>)
        .filter((r) => typeof r?.role === 'string' && typeof r?.experiment === 'string')
        .map((r) => ({ role: r.role as string, experiment: r.experiment as string }))
    : [];
  return {
    subject: str(claims.sub) ?? '',
    clientId,
    tool: clientId ?? str(claims.azp),
    username,
    email: str(claims.email),
    roles: Array.isArray(realm?.roles) ? realm.roles.filter((r): r is string => typeof r === 'string') : [],
    permissions,
    experimentRoles,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : 0,
  };
}
