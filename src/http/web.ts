import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { Config } from '../config.js';
import { tileSource } from '../domain/map-tiles.js';
import { registerObservatorySettings } from './observatory-settings.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The built observatory page: web/dist next to the package root (source or compiled layout). */
export function webRoot(): string | undefined {
  for (const candidate of [path.resolve(here, '../../web/dist'), path.resolve(here, '../../../web/dist')]) {
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/**
 * The page's Content-Security-Policy: its own origin only, plus exactly the host of the configured
 * street map tiles (images) when there are any.
 */
export function pageSecurityPolicy(mapTiles: string | null): string {
  const images = ["'self'", 'data:', 'blob:', ...(mapTiles ? [tileSource(mapTiles)] : [])].join(' ');
  return `default-src 'self'; img-src ${images}; style-src 'self'; script-src 'self'; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'`;
}

/** Serves the observatory at `/` with the page's security headers, and the settings it reads. */
export async function registerWeb(app: FastifyInstance, config: Config): Promise<void> {
  registerObservatorySettings(app, config);
  const PAGE_HEADERS = {
    'content-security-policy': pageSecurityPolicy(config.mapTiles),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
  const root = webRoot();
  if (!root) {
    app.get('/', { schema: { hide: true } }, (_req, reply) => {
      reply.headers(PAGE_HEADERS).type('text/html').send('<!doctype html><title>OpenCity</title><h1>OpenCity</h1><p>The observatory page is not built: run <code>npm run build</code>.</p><p><a href="/docs">API documentation</a></p>');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/',
    index: ['index.html'],
    wildcard: false,
    setHeaders(res) {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
    },
  });
}
