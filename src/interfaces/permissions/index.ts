import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { sendError } from '../../http/error-handler.js';
import { clientRoutes } from './clients.js';
import { roleRoutes } from './roles.js';
import { userRoutes } from './users.js';
import { strictValidatorCompiler } from './validator.js';

/**
 * The permissions interface (spec part B): roles, users and clients, for the
 * service accounts of clients only. Every error body is `{"error": "<message>"}`.
 */
export async function permissionsInterface(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.setValidatorCompiler(strictValidatorCompiler);
  // Bodies are JSON: any other type is 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`);
    return sendError(reply, request, error, 'message');
  });
  await clientRoutes(app, ctx);
  await userRoutes(app, ctx);
  await roleRoutes(app, ctx);
}
