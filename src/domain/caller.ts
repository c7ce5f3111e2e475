/**
 * Who is calling, as the rules of the domain (visibility, permissions, sites)
 * need to know it. The identity layer fills it from a verified token
 * (Keycloak-compatible claims); nothing here depends on how it was verified.
 */
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
