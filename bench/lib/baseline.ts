import type { LoadResult } from '../types.js';
import { load, type LoadOptions } from './load.js';
import { freePort, spawnChild, waitUntilAnswering } from './processes.js';

export interface BareResponse {
  /** Status the bare server answers every request with (default 200). */
  status?: number;
  /** Response body (default `{"status":"ok"}`). */
  body?: string;
  contentType?: string;
}

/**
 * The least a Node server can do: node:http, read the request body, answer a
 * fixed status and body. Run as its own process, like the platform's server.
 */
const BARE_SERVER = `
const http = require('node:http');
const status = Number(process.env.BARE_STATUS);
const body = Buffer.from(process.env.BARE_BODY);
const headers = { 'content-type': process.env.BARE_CONTENT_TYPE, 'content-length': body.length };
http.createServer((req, res) => {
  if (req.url === '/__ready') { res.writeHead(200); res.end(); return; }
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(status, headers); res.end(body); });
}).listen(Number(process.env.BARE_PORT), '127.0.0.1');
`;

export interface BareServer {
  url: string;
  close(): Promise<void>;
}

export async function startBareServer(response: BareResponse = {}): Promise<BareServer> {
  const port = await freePort();
  const child = spawnChild(process.execPath, ['-e', BARE_SERVER], {
    PATH: process.env.PATH,
    BARE_PORT: String(port),
    BARE_STATUS: String(response.status ?? 200),
    BARE_BODY: response.body ?? '{"status":"ok"}',
    BARE_CONTENT_TYPE: response.contentType ?? 'application/json',
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilAnswering(`${url}/__ready`, child, { timeoutMs: 10_000 });
  return { url, close: () => child.stop() };
}

export interface BaselineOptions extends BareResponse, Pick<LoadOptions, 'method' | 'headers' | 'requests' | 'connections' | 'durationSeconds' | 'warmupSeconds'> {
  /** Request path (default `/`); the bare server ignores it, but the request line keeps its size. */
  path?: string;
  /** Request body, sent as the scenario sends it (the server reads and drops it). */
  requestBody?: string;
}

/**
 * Load on a bare node:http server answering the same status, with the same
 * request shape, connections and duration: the ceiling the scenario is compared with.
 */
export async function bareBaseline(options: BaselineOptions = {}): Promise<LoadResult> {
  const server = await startBareServer(options);
  try {
    return await load({
      url: `${server.url}${options.path ?? '/'}`,
      method: options.method,
      headers: options.headers,
      body: options.requestBody,
      requests: options.requests,
      connections: options.connections,
      durationSeconds: options.durationSeconds,
      warmupSeconds: options.warmupSeconds,
      expectStatus: options.status ?? 200,
    });
  } finally {
    await server.close();
  }
}
