import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/** OpenAPI 3.1, generated from the route schemas, browsable at /docs (JSON at /docs/json). */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'OpenCity',
        version: '0.1.0',
        description: 'The four interfaces of the OpenCity urban data platform: federation (sites push assets), permissions (roles, users, clients), discovery (explore assets) and datasource (history), plus the identity provider.',
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'federation', description: 'Sites push, update and delete assets (NGSI v2)' },
        { name: 'permissions', description: 'Roles, users and clients' },
        { name: 'discovery', description: 'Read-only exploration of assets, sites, services, providers and types' },
        { name: 'datasource', description: 'Historical readings of assets' },
        { name: 'identity', description: 'OpenID Connect provider' },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
}
