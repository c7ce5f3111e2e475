import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { VERSION } from '../version.js';

/**
 * The policy of the /docs pages. Not the plugin's default, which carries `upgrade-insecure-requests`:
 * over plain HTTP on any name but localhost the browser then asks for the page's scripts over https
 * and draws a blank page. Everything the page loads is its own; it loads nothing from elsewhere.
 */
/**
 * Swagger UI's renderer inserts one `<style>` element of fixed content; its digest lets exactly that
 * element in, where `'unsafe-inline'` would let in any. A new Swagger UI may change it: the /docs
 * browser test then reports the violation with the new digest.
 */
const SWAGGER_UI_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

export const DOCS_CSP = [
  "default-src 'self'", "base-uri 'self'", "font-src 'self' data:", "frame-ancestors 'self'", "img-src 'self' data:",
  "object-src 'none'", "script-src 'self'", "script-src-attr 'none'", `style-src 'self' ${SWAGGER_UI_STYLE}`, "connect-src 'self'", "form-action 'self'",
].join('; ');

/** OpenAPI 3.1, generated from the route schemas, browsable at /docs (JSON at /docs/json). */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'OpenCity',
        version: VERSION,
        description: 'The four interfaces of the OpenCity urban data platform: federation (sites push assets), permissions (roles, users, clients), discovery (explore assets) and datasource (history), plus the identity provider.',
      },
      servers: [{ url: publicUrl }],
      tags: [
        { name: 'federation', description: 'Sites push, update and delete assets (NGSI v2)' },
        { name: 'subscriptions', description: 'NGSI v2 subscriptions: changes pushed to your endpoint, at least once' },
        { name: 'permissions', description: 'Roles, users and clients' },
        { name: 'discovery', description: 'Read-only exploration of assets, sites, services, providers and types' },
        { name: 'datasource', description: 'Historical readings of assets' },
        { name: 'identity', description: 'OpenID Connect provider' },
        { name: 'observatory', description: 'Settings of the observatory page at /' },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });
}
