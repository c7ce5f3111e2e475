import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { admitCaller, type AccountsPermission, type ToolGrant } from '../../domain/role-access.js';
import { requireCaller } from '../../http/auth.js';

const grants = new WeakMap<FastifyRequest, ToolGrant>();

/**
 * The gate of an operation, run before the body is read or validated: 401
 * without a token, 403 unless the caller is a client's service account holding
 * one of `anyOf`. Identity and permissions come from the verified token only.
 */
export function admit(...anyOf: AccountsPermission[]): onRequestAsyncHookHandler {
  return async (request) => {
    grants.set(request, admitCaller(requireCaller(request), anyOf));
  };
}

/** The admitted caller of a route guarded by `admit`. */
export function grantOf(request: FastifyRequest): ToolGrant {
  const grant = grants.get(request);
  if (!grant) throw new Error('route is not guarded by admit()');
  return grant;
}
