/** Who is calling, as the bearer token says (Keycloak-compatible claims). */
export interface Caller {
  /** `sub`: the user id (for clients, their service-account user). */
  subject: string;
  /** Set when the token is a client's service-account token. */
  clientId: string | undefined;
  /** The calling tool: `clientId` (or `client_id`), else `azp`. */
  tool: string | undefined;
  username: string | undefined;
  email: string | undefined;
  /** Global roles (`realm_access.roles`), composites expanded. */
  roles: string[];
  /** Per-tool permissions (`resource_access.<tool>.roles`), unprefixed. */
  permissions: Record<string, string[]>;
  /** Roles scoped to an experiment. */
  experimentRoles: Array<{ role: string; experiment: string }>;
  /** Epoch ms after which the token is no longer valid. */
  expiresAt: number;
}

export function hasRole(caller: Caller | undefined, role: string): boolean {
  return caller?.roles.includes(role) ?? false;
}

export function hasPermission(caller: Caller | undefined, tool: string, permission: string): boolean {
  return caller?.permissions[tool]?.includes(permission) ?? false;
}

/** Builds the caller from verified claims. */
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
