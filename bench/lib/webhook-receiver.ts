import { Worker } from 'node:worker_threads';

/**
 * Notification receivers for the push scenario, on loopback: each path is one
 * subscription's endpoint; every request is recorded as (path, change seq,
 * arrival time) and answered 204. `silent` paths never answer (a destination
 * that accepts the connection and then says nothing). They run in a thread of
 * their own, so that the load generator in this one neither slows them nor
 * delays their clocks.
 */
export interface Arrival {
  path: string;
  seq: number;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  /** The highest seq each path has received so far. */
  highest(): Promise<Map<string, number>>;
  /** Every notification received so far. */
  arrivals(): Promise<Arrival[]>;
  close(): Promise<void>;
}

const THREAD = `
const http = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const silent = new Set(workerData.silent);
const arrivals = [];
const highest = new Map();
const server = http.createServer({ keepAliveTimeout: 60000 }, (req, res) => {
  const path = req.url || '';
  if (silent.has(path)) { req.resume(); return; }
  req.on('data', () => {});
  req.on('end', () => {
    const seq = Number(req.headers['opencity-change-seq']);
    arrivals.push({ path, seq, at: Date.now() });
    if ((highest.get(path) || 0) < seq) highest.set(path, seq);
    res.statusCode = 204;
    res.end();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'highest') parentPort.postMessage({ highest: [...highest] });
  else if (message === 'arrivals') parentPort.postMessage({ arrivals });
  else if (message === 'close') { server.closeAllConnections(); server.close(() => parentPort.postMessage({ closed: true })); }
});
`;

export async function startWebhookReceiver(silent: ReadonlySet<string> = new Set()): Promise<WebhookReceiver> {
  const worker = new Worker(THREAD, { eval: true, workerData: { silent: [...silent] } });
  const ask = <T>(question: string, key: string): Promise<T> => new Promise((resolve) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      worker.off('message', onMessage);
      resolve(message[key] as T);
    };
    worker.on('message', onMessage);
    worker.postMessage(question);
  });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', (message: { port: number }) => resolve(message.port));
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    highest: async () => new Map(await ask<Array<[string, number]>>('highest', 'highest')),
    arrivals: () => ask<Arrival[]>('arrivals', 'arrivals'),
    async close() {
      await ask('close', 'closed');
      await worker.terminate();
    },
  };
}
