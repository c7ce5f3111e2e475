import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A notification as a receiver got it. */
export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/**
 * A loopback HTTP server standing for a subscriber's endpoint: it records
 * every request and answers with the status the test sets (200 by default).
 * `next()` resolves with the next request to arrive (or one already there).
 */
export class Receiver {
  readonly received: Received[] = [];
  /** The status of the next answers (a list is used up first, one per request). */
  status = 200;
  readonly statuses: number[] = [];
  private readonly waiting: Array<{ count: number; resolve: (r: Received[]) => void }> = [];
  private server: http.Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        this.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text) });
        res.statusCode = this.statuses.shift() ?? this.status;
        res.end();
        this.settle();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private settle(): void {
    for (const w of [...this.waiting]) {
      if (this.received.length >= w.count) {
        this.waiting.splice(this.waiting.indexOf(w), 1);
        w.resolve(this.received.slice(0, w.count));
      }
    }
  }

  /** Resolves once `count` requests in all have arrived. */
  until(count: number): Promise<Received[]> {
    return new Promise((resolve) => {
      this.waiting.push({ count, resolve });
      this.settle();
    });
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
