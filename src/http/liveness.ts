import http, { type IncomingMessage, type ServerResponse } from 'node:http';

const BODY = '{"status":"ok"}';

/**
 * The HTTP server, with liveness answered before the router: probes hit it every
 * few seconds from every orchestrator, and it must stay cheap and answer even
 * when the app is saturated. `/health` is also a Fastify route (same answer) for
 * in-process requests and the OpenAPI document.
 */
export function serverWithLiveness(handler: (req: IncomingMessage, res: ServerResponse) => void, options: ServerTimeouts = {}): http.Server {
  const server = http.createServer(options.http ?? {}, (req, res) => {
    if (req.url === '/health' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : BODY);
      return;
    }
    handler(req, res);
  });
  // Fastify applies its timeouts only to servers it makes itself: a factory's server takes them here.
  if (options.keepAliveTimeout !== undefined) server.keepAliveTimeout = options.keepAliveTimeout;
  if (options.requestTimeout !== undefined) server.requestTimeout = options.requestTimeout;
  if (options.connectionTimeout !== undefined) server.setTimeout(options.connectionTimeout);
  return server;
}

/** The Fastify options a server factory receives that concern the server itself. */
interface ServerTimeouts {
  http?: http.ServerOptions | null;
  requestTimeout?: number;
  keepAliveTimeout?: number;
  connectionTimeout?: number;
}
