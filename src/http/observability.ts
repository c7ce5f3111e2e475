import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What the probes and metrics ask of the store: the HTTP layer knows no more of it. */
export interface StoreProbe {
  ping(): Promise<boolean>;
  pool(): { total: number; idle: number; waiting: number };
  /** The change log's last committed seq. */
  changes: { latest(): Promise<number> };
}

/** /health (process alive), /ready (store reachable) and /metrics (Prometheus text). */
export function registerObservability(app: FastifyInstance, store: StoreProbe, registry: Registry = new Registry()): void {
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'opencity_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'opencity_http_request_duration_seconds', help: 'HTTP request latency by route', labelNames: ['route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
  });
  new Gauge({
    name: 'opencity_store_pool_connections', help: 'Store connections by state', labelNames: ['state'], registers: [registry],
    collect() {
      const p = store.pool();
      this.set({ state: 'total' }, p.total);
      this.set({ state: 'idle' }, p.idle);
      this.set({ state: 'waiting' }, p.waiting);
    },
  });

  new Gauge({
    name: 'opencity_change_log_last_seq', help: 'Sequence number of the last change committed to the change log (0: none)', registers: [registry],
    async collect() {
      this.set(await store.changes.latest());
    },
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, method: request.method, status: reply.statusCode });
    latency.observe({ route }, reply.elapsedTime / 1000);
    done();
  });

  const hidden = { hide: true };
  app.get('/health', { schema: hidden }, (_req, reply) => {
    reply.header('content-type', 'application/json').send('{"status":"ok"}');
  });
  app.get('/ready', { schema: hidden }, async (_req, reply) => {
    const ok = await store.ping();
    reply.code(ok ? 200 : 503).header('content-type', 'application/json')
      .send(JSON.stringify(ok ? { status: 'ready' } : { error: 'ServiceUnavailable', description: 'The store is unreachable' }));
  });
  app.get('/metrics', { schema: hidden }, async (_req, reply) => {
    reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
}
