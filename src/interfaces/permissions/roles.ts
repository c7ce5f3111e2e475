import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  ExperimentQuery, Role, UserParams, UserRoleParams, grantRoleResponses, listRolesResponses, readRoleResponses, revokeRoleResponses,
} from '../../contracts/permissions.js';
import { notFound } from '../../domain/errors.js';
import { holdsRole, requireRoleAccess, visibleRoles, type RoleAccess, type ToolGrant } from '../../domain/role-access.js';
import { parseExperiment, parseRoleName, type RoleRef } from '../../domain/roles.js';
import { findUserRoles, grantRoleToUser, revokeRoleFromUser } from '../../storage/repositories/principals.js';
import { admit, grantOf } from './guard.js';
import { bearerRequired } from '../../contracts/security.js';

const config = { errorStyle: 'message' as const };
const noSuchUser = (userId: string) => notFound(`No user has the id ${userId}.`);
const asRole = (r: RoleRef): Role => (r.experiment === null ? { role: r.role } : { role: r.role, experiment: r.experiment });

/**
 * A role named in a request, checked in the order the interface promises: its
 * format (404), whether this caller may read or edit it (403), its experiment (422).
 */
function roleOfRequest(grant: ToolGrant, name: string, experiment: string | undefined, access: RoleAccess): RoleRef {
  const role = parseRoleName(name);
  requireRoleAccess(grant, role, access);
  return { role, experiment: parseExperiment(role, experiment) };
}

const rolePath = (userId: string, r: RoleRef): string =>
  `/permissions/users/${encodeURIComponent(userId)}/roles/${encodeURIComponent(r.role)}`
  + (r.experiment === null ? '' : `?experiment=${encodeURIComponent(r.experiment)}`);

/** A user's roles: global roles and the calling tool's own permissions, read and assigned one at a time. */
export async function roleRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/users/:userId/roles', {
    config,
    onRequest: admit('readGlobalRoles', 'readLocalRoles'),
    schema: {
      tags: ['permissions'],
      summary: 'Read the roles of a user',
      description: 'Global roles (with readGlobalRoles; composites expanded: administrator brings scenarios:admin and '
        + 'site-manager:role-admin) and the calling tool\'s own permissions <tool>:… (with readLocalRoles). '
        + 'Experiment-scoped roles come back as {role, experiment}.',
      params: UserParams,
      security: bearerRequired,
      response: listRolesResponses,
    },
  }, async (request) => {
    const assignments = await findUserRoles(ctx.store, request.params.userId);
    if (!assignments) throw noSuchUser(request.params.userId);
    return visibleRoles(grantOf(request), assignments).map(asRole);
  });

  app.post('/users/:userId/roles', {
    config,
    onRequest: admit('editGlobalRoles', 'editLocalRoles'),
    schema: {
      tags: ['permissions'],
      summary: 'Assign a role to a user',
      description: 'A global role needs editGlobalRoles, the caller\'s own <tool>:… permission editLocalRoles; another tool\'s '
        + 'permissions are refused (403). Assigning a role the user holds already is 201 with no change. The user\'s next '
        + 'token carries it. For a client, use the id of its service account.',
      params: UserParams,
      body: Role,
      security: bearerRequired,
      response: grantRoleResponses,
    },
  }, async (request, reply) => {
    const { userId } = request.params;
    const role = roleOfRequest(grantOf(request), request.body.role, request.body.experiment, 'edit');
    const outcome = await grantRoleToUser(ctx.store, userId, role, ctx.clock.now());
    if (outcome === 'no-user') throw noSuchUser(userId);
    return reply.code(201).header('location', rolePath(userId, role)).send(asRole(role));
  });

  app.get('/users/:userId/roles/:roleName', {
    config,
    onRequest: admit('readGlobalRoles', 'readLocalRoles'),
    schema: {
      tags: ['permissions'],
      summary: 'Does the user hold this role?',
      description: '200 with the role when the user holds it (directly or through a composite), 404 when not.',
      params: UserRoleParams,
      querystring: ExperimentQuery,
      security: bearerRequired,
      response: readRoleResponses,
    },
  }, async (request) => {
    const { userId, roleName } = request.params;
    const role = roleOfRequest(grantOf(request), roleName, request.query.experiment, 'read');
    const assignments = await findUserRoles(ctx.store, userId);
    if (!assignments) throw noSuchUser(userId);
    if (!holdsRole(assignments, role)) throw notFound(`The user does not hold the role ${role.role}${role.experiment === null ? '' : ` in the experiment ${role.experiment}`}.`);
    return asRole(role);
  });

  app.delete('/users/:userId/roles/:roleName', {
    config,
    onRequest: admit('editGlobalRoles', 'editLocalRoles'),
    schema: {
      tags: ['permissions'],
      summary: 'Remove a role from a user',
      description: '200 whether or not the user held it. Same permissions as assigning. A role the user holds only through '
        + 'a composite stays until the composite is removed.',
      params: UserRoleParams,
      querystring: ExperimentQuery,
      security: bearerRequired,
      response: revokeRoleResponses,
    },
  }, async (request, reply) => {
    const { userId, roleName } = request.params;
    const role = roleOfRequest(grantOf(request), roleName, request.query.experiment, 'edit');
    if ((await revokeRoleFromUser(ctx.store, userId, role)) === 'no-user') throw noSuchUser(userId);
    return reply.code(200).send();
  });
}
