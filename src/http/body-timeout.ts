import type { FastifyInstance } from 'fastify';
import { handleClientError } from './client-errors.js';

/**
 * Node's requestTimeout covers a request until its headers are in; a client
 * that then trickles its body would hold the connection for as long as it
 * likes. The rest of the request must arrive within the same time: otherwise
 * 408 (JSON) and the connection is closed.
 */
export function registerBodyTimeout(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete) {
      done();
      return;
    }
    const timer = setTimeout(() => {
      if (!raw.complete && !reply.sent) handleClientError(Object.assign(new Error('request body too slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), raw.socket);
    }, timeoutMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    reply.raw.once('close', clear);
    done();
  });
}
