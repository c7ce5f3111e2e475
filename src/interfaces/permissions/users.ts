import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import { UsersQuery, listUsersResponses } from '../../contracts/permissions.js';
import { notFound } from '../../domain/errors.js';
import { requirePermission } from '../../domain/role-access.js';
import { userPage } from '../../domain/user-paging.js';
import { findPeopleByEmail, listUsers } from '../../storage/repositories/principals.js';
import { admit, grantOf } from './guard.js';
import { bearerRequired } from '../../contracts/security.js';

/** The user list: people (service accounts are not listed), sorted by name, `{id, name}` only. */
export async function userRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/users', {
    config: { errorStyle: 'message' },
    onRequest: admit('listUsers', 'findUserByEmail'),
    // Bad offset/count are the spec's 422, not a generic 400: the handler decides.
    attachValidation: true,
    schema: {
      tags: ['permissions'],
      summary: 'List users, or find one by e-mail address',
      description: 'Sorted by user name, paged by offset and count (listUsers). With email (findUserByEmail): the users with that '
        + 'address, ignoring case, or 404. Only id and name are shown.',
      querystring: UsersQuery,
      security: bearerRequired,
      response: listUsersResponses,
    },
  }, async (request) => {
    const grant = grantOf(request);
    // Until the validation error is thrown below, the values may be anything: userPage reads them as unknown.
    const { email } = request.query;
    requirePermission(grant, email === undefined ? 'listUsers' : 'findUserByEmail');
    const page = userPage(request.query.offset, request.query.count);
    if (request.validationError) throw request.validationError;
    if (typeof email === 'string') {
      const found = await findPeopleByEmail(ctx.store, email);
      if (found.length === 0) throw notFound('No user has that e-mail address.');
      return found.map((u) => ({ id: u.id, name: u.username }));
    }
    const users = await listUsers(ctx.store, page.offset, page.count);
    return users.map((u) => ({ id: u.id, name: u.username }));
  });
}
