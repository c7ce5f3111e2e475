import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../context.js';
import {
  ClientBody, ClientParams, RedirectUris, createClientResponses, editRedirectUrisResponses, readRedirectUrisResponses,
} from '../../contracts/permissions.js';
import { isPlatformClient, planNewClient, redirectUriSet } from '../../domain/client-registration.js';
import { AppError, forbidden, notFound, unprocessable } from '../../domain/errors.js';
import { reservedSiteClientMessage, siteOfReservedClientId } from '../../domain/site-client.js';
import { registerClient } from '../../identity/clients.js';
import {
  clientIdTaken, findClient, findClientRedirectUris, isDuplicateKey, replaceClientRedirectUris,
} from '../../storage/repositories/principals.js';
import { findSite } from '../../storage/repositories/sites.js';
import { admit } from './guard.js';
import { bearerRequired } from '../../contracts/security.js';

const config = { errorStyle: 'message' as const };
const clientExists = (clientId: string) => new AppError('CONFLICT', `A client with the id ${clientId} exists already.`);
const noSuchClient = (clientId: string) => notFound(`No client has the id ${clientId}.`);

/** Clients: creation (with a service account) and their redirect URIs. */
export async function clientRoutes(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/clients', {
    config,
    onRequest: admit('createClient'),
    schema: {
      tags: ['permissions'],
      summary: 'Create a client',
      description: 'Creates a confidential client with a service account and returns its credentials once. '
        + 'Grant the client roles with POST /users/{service_account_id}/roles (e.g. ocsite for a site client ocsite-<site>, '
        + 'which may be made here only for a registered site). '
        + 'Needs accounts-permissions:createClient.',
      body: ClientBody,
      security: bearerRequired,
      response: createClientResponses,
    },
  }, async (request, reply) => {
    const plan = planNewClient(request.body);
    if (plan.clientId !== undefined && await clientIdTaken(ctx.store, plan.clientId)) throw clientExists(plan.clientId);
    const site = plan.clientId === undefined ? undefined : siteOfReservedClientId(plan.clientId);
    // A site's client made ahead of its site would keep `opencity site add` from ever registering it.
    if (site !== undefined && !(await findSite(ctx.store, site))) throw unprocessable(reservedSiteClientMessage(plan.clientId as string, site));
    let credentials;
    try {
      credentials = await registerClient(ctx.store, ctx.clock, {
        clientId: plan.clientId, name: plan.name, uri: plan.uri, redirectUris: plan.redirectUris,
      });
    } catch (error) {
      // Two requests creating the same id at once: the store's key settles it.
      if (plan.clientId !== undefined && isDuplicateKey(ctx.store, error)) throw clientExists(plan.clientId);
      throw error;
    }
    const client = await findClient(ctx.store, credentials.client_id);
    if (!client) throw new AppError('INTERNAL');
    return reply.code(201).send({ client_id: credentials.client_id, secret: credentials.secret, service_account_id: client.serviceAccountUserId });
  });

  app.get('/clients/:clientId/redirecturis', {
    config,
    onRequest: admit('readClientRedirectUris'),
    schema: {
      tags: ['permissions'],
      summary: 'Read the redirect URIs of a client',
      description: 'Needs accounts-permissions:readClientRedirectUris. The array is empty when the client has none.',
      params: ClientParams,
      security: bearerRequired,
      response: readRedirectUrisResponses,
    },
  }, async (request) => {
    const uris = await findClientRedirectUris(ctx.store, request.params.clientId);
    if (!uris) throw noSuchClient(request.params.clientId);
    return { redirectUris: uris };
  });

  app.put('/clients/:clientId/redirecturis', {
    config,
    onRequest: admit('editClientRedirectUris'),
    schema: {
      tags: ['permissions'],
      summary: 'Replace the redirect URIs of a client',
      description: 'A full, atomic replacement: afterwards the client has exactly the given URIs (repeats dropped, order kept), '
        + 'or, when one is refused, still its old ones. The platform\'s own clients (opencity-…) are not changed here. '
        + 'Needs accounts-permissions:editClientRedirectUris.',
      params: ClientParams,
      body: RedirectUris,
      security: bearerRequired,
      response: editRedirectUrisResponses,
    },
  }, async (request, reply) => {
    const { clientId } = request.params;
    if (isPlatformClient(clientId)) throw forbidden('The platform\'s own clients cannot be changed through this interface.');
    const uris = redirectUriSet(request.body.redirectUris);
    if (!(await replaceClientRedirectUris(ctx.store, clientId, uris))) throw noSuchClient(clientId);
    return reply.code(200).send();
  });
}
