import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedDestination, bareHost, type DestinationPolicy } from '../domain/notify-destination.js';

/**
 * Sends notifications over HTTP. Each destination (scheme, host and port) has
 * its own connections and its own bounded number of requests under way, so a
 * slow or dead endpoint only holds up the notifications going to it. The name
 * of a destination is resolved for every connection made, and the address it
 * resolves to is checked against NOTIFY_ALLOWED_HOSTS then, not only when the
 * subscription was written.
 */

export interface NotificationRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export type NotifyOutcome = { ok: true; status: number } | { ok: false; status: number | undefined; reason: string };

/** Requests under way to one destination at most. */
export const DESTINATION_CONCURRENCY = 8;

class Destination {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  constructor(readonly agent: http.Agent) {}

  async acquire(): Promise<void> {
    if (this.active < DESTINATION_CONCURRENCY) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }
}

class RefusedDestination extends Error {}

function reasonOf(error: unknown): string {
  if (error instanceof RefusedDestination) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return 'host name not resolved';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return 'host unreachable';
    default: return code ?? (error instanceof Error ? error.message : 'failed');
  }
}

export class Notifier {
  private readonly destinations = new Map<string, Destination>();
  private readonly lookup: LookupFunction;

  constructor(private readonly policy: DestinationPolicy, private readonly timeoutMs: number) {
    this.lookup = ((hostname: string, options: dns.LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void) => {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        for (const a of addresses) {
          const refused = refusedDestination(this.policy, hostname, a.address);
          if (refused) return callback(new RefusedDestination(refused) as NodeJS.ErrnoException, '', 0);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0] as dns.LookupAddress;
        return callback(null, first.address, first.family);
      });
    }) as LookupFunction;
  }

  private destination(url: URL): Destination {
    let destination = this.destinations.get(url.origin);
    if (!destination) {
      const options = { keepAlive: true, maxSockets: DESTINATION_CONCURRENCY, lookup: this.lookup };
      destination = new Destination(url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options));
      this.destinations.set(url.origin, destination);
    }
    return destination;
  }

  /** Sends one notification; only a 2xx answer is a success. */
  async send(request: NotificationRequest): Promise<NotifyOutcome> {
    const host = bareHost(request.url.hostname);
    // A literal address is never looked up: it is judged here.
    if (isIP(host) !== 0) {
      const refused = refusedDestination(this.policy, host, host);
      if (refused) return { ok: false, status: undefined, reason: refused };
    }
    const destination = this.destination(request.url);
    await destination.acquire();
    try {
      const status = await this.exchange(request, destination.agent);
      return status >= 200 && status < 300 ? { ok: true, status } : { ok: false, status, reason: `HTTP ${status}` };
    } catch (error) {
      return { ok: false, status: undefined, reason: reasonOf(error) };
    } finally {
      destination.release();
    }
  }

  private exchange(request: NotificationRequest, agent: http.Agent): Promise<number> {
    const send = request.url.protocol === 'https:' ? https.request : http.request;
    return new Promise<number>((resolve, reject) => {
      const body = Buffer.from(request.body);
      const req = send(request.url, {
        method: request.method, agent,
        headers: { ...request.headers, 'content-length': String(body.length) },
      }, (res) => {
        res.on('error', () => {});
        res.on('end', () => {
          clearTimeout(timer);
          resolve(res.statusCode ?? 0);
        });
        res.resume();
      });
      const timer = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })), this.timeoutMs);
      req.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      req.end(body);
    });
  }

  close(): void {
    for (const destination of this.destinations.values()) destination.agent.destroy();
    this.destinations.clear();
  }
}
