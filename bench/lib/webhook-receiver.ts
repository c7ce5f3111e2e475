import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Notification receivers for the push scenario, on loopback: each path is one
 * subscription's endpoint; every request is recorded as (path, change seq,
 * arrival time) and answered 204. `silent` paths never answer (a destination
 * that accepts the connection and then says nothing).
 */
export interface Arrival {
  path: string;
  seq: number;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(silent: ReadonlySet<string> = new Set()): Promise<WebhookReceiver> {
  const arrivals: Arrival[] = [];
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const path = req.url ?? '';
    if (silent.has(path)) {
      req.resume();
      return;
    }
    req.on('data', () => {});
    req.on('end', () => {
      arrivals.push({ path, seq: Number(req.headers['opencity-change-seq']), at: Date.now() });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
