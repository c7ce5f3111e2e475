import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isDelivered } from '../domain/delivery-retry.js';
import { refusedDestination, bareHost, type DestinationPolicy } from '../domain/notify-destination.js';
import { HttpConnection } from './http-connection.js';

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

/**
 * Requests under way to one destination at most, each on a connection of its
 * own kept open between notifications: enough for thousands of notifications
 * a second to one receiver over loopback-like round trips, few enough for any
 * web server to take.
 */
export const DESTINATION_CONCURRENCY = 64;

class Destination {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  /** Connections open and not in use. */
  private readonly idle: HttpConnection[] = [];
  private readonly open = new Set<HttpConnection>();
  /**
   * @param refused why a literal address is refused (judged once: the policy
   * does not change while the process runs); a name is judged at every connection.
   */
  constructor(private readonly url: URL, private readonly lookup: LookupFunction, readonly refused: string | undefined) {}

  /** A connection for one exchange (after acquire()): an idle one, else a new one. */
  connection(): HttpConnection {
    for (let c = this.idle.pop(); c; c = this.idle.pop()) if (c.usable) return c;
    const connection = new HttpConnection(this.url, this.lookup, (gone) => {
      this.open.delete(gone);
      const at = this.idle.indexOf(gone);
      if (at >= 0) this.idle.splice(at, 1);
    });
    this.open.add(connection);
    return connection;
  }

  /** A connection whose exchange is over is kept for the next, while it may be. */
  giveBack(connection: HttpConnection): void {
    if (connection.usable) this.idle.push(connection);
  }

  close(): void {
    for (const connection of [...this.open]) connection.close();
  }

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
      const host = bareHost(url.hostname);
      // A literal address is never looked up: it is judged here.
      const refused = isIP(host) !== 0 ? refusedDestination(this.policy, host, host) : undefined;
      destination = new Destination(new URL(url.origin), this.lookup, refused);
      this.destinations.set(url.origin, destination);
    }
    return destination;
  }

  /** Sends one notification (its headers are the notifier's to complete); only a 2xx answer is a success. */
  async send(request: NotificationRequest): Promise<NotifyOutcome> {
    const destination = this.destination(request.url);
    if (destination.refused) return { ok: false, status: undefined, reason: destination.refused };
    await destination.acquire();
    const connection = destination.connection();
    try {
      const status = await connection.exchange(request, this.timeoutMs);
      return isDelivered(status) ? { ok: true, status } : { ok: false, status, reason: `HTTP ${status}` };
    } catch (error) {
      return { ok: false, status: undefined, reason: reasonOf(error) };
    } finally {
      destination.giveBack(connection);
      destination.release();
    }
  }

  close(): void {
    for (const destination of this.destinations.values()) destination.close();
    this.destinations.clear();
  }
}
