import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DiscoveryError } from '../../contracts/discovery.js';
import { EventStreamAnswer, EventsHeaders, EventsQuery } from '../../contracts/discovery-events.js';
import { bearerOptional } from '../../contracts/security.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../domain/errors.js';
import { parseEventFilter, parseLastEventId } from '../../domain/live-events.js';
import { visibleAssets } from '../../domain/visible-assets.js';
import { EventStreamConnection, sseRendering } from '../../http/event-stream.js';
import { LiveEventHub } from '../../services/live-events.js';

/**
 * The live event stream (discovery, `GET /assets/events`): Server-Sent Events
 * of the asset changes the caller may see. Registered beside the discovery
 * routes, outside their answer cache: a stream is never an answer to keep.
 */
export async function liveEventsInterface(scope: FastifyInstance, ctx: AppContext): Promise<void> {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const hub = new LiveEventHub(ctx.store, ctx.timers, sseRendering, ctx.config.eventsMaxClients,
    (error) => app.log.warn({ err: error }, 'reading the change log for the event stream failed'));
  const open = new Set<EventStreamConnection>();
  app.addHook('preClose', async () => {
    hub.close();
    for (const connection of open) connection.end();
  });

  app.get('/assets/events', {
    schema: {
      tags: ['discovery'], summary: 'Live event stream of asset changes (Server-Sent Events)', security: bearerOptional,
      description: 'Every change the caller may see, as it commits, filtered by site, service, provider, type, urn prefix and bbox. '
        + 'Last-Event-ID resumes right after that change; when it is no longer kept, an event `reset` tells the client to reload. '
        + 'A client that does not keep up is closed with a last event `overflow`.',
      querystring: EventsQuery, headers: EventsHeaders,
      response: {
        200: { content: { 'text/event-stream': { schema: EventStreamAnswer } } },
        400: { ...DiscoveryError, description: 'A parameter is not valid; the description names it' },
        503: { ...DiscoveryError, description: 'As many clients as EVENTS_MAX_CLIENTS are connected' },
      },
    },
  }, async (request, reply) => {
    const filter = parseEventFilter(request.query);
    const after = parseLastEventId(request.headers['last-event-id'] ?? request.query.lastEventId);
    if (hub.isFull()) throw new AppError('EVENT_STREAM_FULL', undefined, { retryAfterSeconds: 5 });
    // HEAD asks what a stream would answer, not for the stream.
    if (request.method === 'HEAD') return reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache, no-transform').send('');
    const resumable = after === undefined || await hub.canResume(after);

    reply.hijack();
    const key = JSON.stringify([filter, visibleAssets(request.caller)]);
    const connection = new EventStreamConnection(reply.raw, filter, request.caller, key, ctx.config.eventsMaxUnreadBytes, (gone) => {
      open.delete(gone);
      hub.leave(gone);
    });
    open.add(connection);
    connection.start(reply.getHeaders());
    try {
      await hub.join(connection, resumable ? { after } : { reset: true });
    } catch (error) {
      request.log.warn({ err: error }, 'the event stream could not start');
      connection.end();
    }
  });
}
