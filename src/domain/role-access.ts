/**
 * Who may do what through the permissions interface (spec part B; DESIGN.md,
 * "Permissions"). The caller is always a client's service account; what it may
 * do comes from its token (`resource_access["accounts-permissions"].roles`),
 * never from request headers.
 */
import { forbidden } from './errors.js';
import { canonicalRole, expandRoles, isToolRole, splitToolRole, type RoleRef } from './roles.js';

/** The tool whose permissions govern this interface. */
export const PERMISSIONS_TOOL = 'accounts-permissions';

export const ACCOUNTS_PERMISSION_NAMES = [
  'readGlobalRoles', 'readLocalRoles', 'editGlobalRoles', 'editLocalRoles', 'listUsers', 'findUserByEmail',
  'createClient', 'readClientRedirectUris', 'editClientRedirectUris',
] as const;
export type AccountsPermission = (typeof ACCOUNTS_PERMISSION_NAMES)[number];

/** What the rules need to know of a verified caller (the identity's Caller fits). */
export interface PermissionsCaller {
  clientId: string | undefined;
  tool: string | undefined;
  permissions: Readonly<Record<string, readonly string[]>>;
}

/** An admitted caller: the tool it speaks for and the accounts-permissions it holds. */
export interface ToolGrant {
  tool: string;
  granted: ReadonlySet<string>;
}

const listed = (permissions: readonly AccountsPermission[]): string =>
  permissions.map((p) => `${PERMISSIONS_TOOL}:${p}`).join(' or ');

/**
 * The first gate of every operation: a client's service account (a token with a
 * `clientId`/`client_id` claim) holding at least one of the operation's permissions.
 */
export function admitCaller(caller: PermissionsCaller, anyOf: readonly AccountsPermission[]): ToolGrant {
  if (!caller.clientId) throw forbidden('Only service accounts of clients may call the permissions interface.');
  const granted = new Set(caller.permissions[PERMISSIONS_TOOL] ?? []);
  if (!anyOf.some((p) => granted.has(p))) throw forbidden(`This operation needs the permission ${listed(anyOf)}.`);
  return { tool: caller.tool ?? caller.clientId, granted };
}

export function requirePermission(grant: ToolGrant, permission: AccountsPermission): void {
  if (!grant.granted.has(permission)) throw forbidden(`This operation needs the permission ${listed([permission])}.`);
}

export type RoleAccess = 'read' | 'edit';

const NEEDED: Record<RoleAccess, { global: AccountsPermission; local: AccountsPermission }> = {
  read: { global: 'readGlobalRoles', local: 'readLocalRoles' },
  edit: { global: 'editGlobalRoles', local: 'editLocalRoles' },
};

/** The tool a role belongs to, or undefined for a global role. */
export function roleTool(role: string): string | undefined {
  return isToolRole(role) ? splitToolRole(role)[0] : undefined;
}

/**
 * May the caller read or edit this role? Global roles need the global permission;
 * `<tool>:…` roles need the local one and must be the caller's own tool's: a tool
 * never sees or touches another tool's permissions (the original did not check this).
 */
export function requireRoleAccess(grant: ToolGrant, role: string, access: RoleAccess): void {
  const tool = roleTool(role);
  if (tool !== undefined && tool !== grant.tool) {
    throw forbidden(`The role ${role} belongs to the tool ${tool}: a tool may only ${access} global roles and its own permissions.`);
  }
  requirePermission(grant, tool === undefined ? NEEDED[access].global : NEEDED[access].local);
}

/**
 * Whether the caller sees the role in a listing: global roles with readGlobalRoles,
 * its own tool's permissions with readLocalRoles (each permission shows only its part).
 */
export function canSeeRole(grant: ToolGrant, role: string): boolean {
  const tool = roleTool(role);
  if (tool === undefined) return grant.granted.has('readGlobalRoles');
  return tool === grant.tool && grant.granted.has('readLocalRoles');
}

/** Effective roles: direct assignments with composites expanded (experiment-scoped ones kept as they are). */
export function effectiveRoles(assignments: readonly RoleRef[]): RoleRef[] {
  const unscoped = assignments.filter((a) => a.experiment === null).map((a) => a.role);
  const scoped = assignments.filter((a) => a.experiment !== null).map((a) => ({ role: canonicalRole(a.role), experiment: a.experiment }));
  const out = [...expandRoles(unscoped).map((role) => ({ role, experiment: null })), ...scoped];
  const seen = new Set<string>();
  return out.filter((r) => {
    const key = `${r.role}\u0000${r.experiment ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const compareRoles = (a: RoleRef, b: RoleRef): number => {
  const toolA = isToolRole(a.role) ? 1 : 0;
  const toolB = isToolRole(b.role) ? 1 : 0;
  if (toolA !== toolB) return toolA - toolB;
  if (a.role !== b.role) return a.role < b.role ? -1 : 1;
  const ea = a.experiment ?? '';
  const eb = b.experiment ?? '';
  return ea === eb ? 0 : ea < eb ? -1 : 1;
};

/** The roles a caller gets back for a user: global roles first, then its own permissions, each sorted. */
export function visibleRoles(grant: ToolGrant, assignments: readonly RoleRef[]): RoleRef[] {
  return effectiveRoles(assignments).filter((r) => canSeeRole(grant, r.role)).sort(compareRoles);
}

/** Does the user effectively hold the role (directly or through a composite)? */
export function holdsRole(assignments: readonly RoleRef[], wanted: RoleRef): boolean {
  return effectiveRoles(assignments).some((r) => r.role === wanted.role && r.experiment === wanted.experiment);
}
