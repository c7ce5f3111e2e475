import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isDelivered } from '../domain/delivery-retry.js';
import { refusedDestination, bareHost, type DestinationPolicy } from '../domain/notify-destination.js';
import type { Dispatcher, Pool } from 'undici';

/**
 * Sends notifications over HTTP. Each destination (scheme, host and port) has
 * its own connections and its own bounded number of requests under way, so a
 * slow or dead endpoint only holds up the notifications going to it. The name
 * of a destination is resolved for every connection made, and the address it
 * resolves to is checked against NOTIFY_ALLOWED_HOSTS then, not only when the
 * subscription was written.
 */

/**
 * The HTTP client, loaded when the first notification is sent: a server whose
 * store has no subscription never holds it in memory.
 */
type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;
const loadUndici = (): Promise<Undici> => (undici ??= import('undici'));

export interface NotificationRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string;
}

export type NotifyOutcome = { ok: true; status: number } | { ok: false; status: number | undefined; reason: string };

/** What delivery sends notifications through: a notifier, or one in a thread of its own (./notifier-thread.ts). */
export interface NotificationSender {
  /** Sends one notification (its headers are the sender's to complete); only a 2xx answer is a success. */
  send(request: NotificationRequest): Promise<NotifyOutcome>;
  /** Gets ready to send, ahead of the first notification. */
  open(): void;
  /** Drops the connections kept open; a later notification opens new ones. */
  close(): void;
}

/**
 * Requests under way to one destination at most, each on a connection of its
 * own kept open between notifications: enough for thousands of notifications
 * a second to one receiver over loopback-like round trips, few enough for any
 * web server to take.
 */
export const DESTINATION_CONCURRENCY = 64;

/** How long a connection with nothing to send stays open for the next notification. */
const KEEP_ALIVE_MS = 4000;

/** The headers as sent: the framing is the client's. */
function framed(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (lower !== 'content-length' && lower !== 'transfer-encoding' && lower !== 'connection') out[lower] = headers[name] as string;
  }
  return out;
}

/**
 * A destination: its pool of kept connections (undici's), which bounds the
 * requests under way and queues the others, and why a literal address is
 * refused (judged once: the policy does not change while the process runs);
 * a name is judged at every connection, by the pool's lookup.
 */
interface Destination {
  pool: Pool;
  refused: string | undefined;
}

class RefusedDestination extends Error {}

function reasonOf(error: unknown): string {
  if (error instanceof RefusedDestination) return error.message;
  // The pool wraps what the socket said in its own error.
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof RefusedDestination) return cause.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? (cause as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_ABORTED':
      return 'timeout';
    // The pool refuses a header it cannot send as given (a name that is no token, a control character in a value).
    case 'UND_ERR_INVALID_ARG':
      return 'invalid header';
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'connection reset';
    case 'ECONNREFUSED': return 'connection refused';
    case 'ECONNRESET': return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return 'host name not resolved';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return 'host unreachable';
    default: return code ?? (error instanceof Error ? error.message : 'failed');
  }
}

export class Notifier implements NotificationSender {
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

  private destination(url: URL, { Pool }: Undici): Destination {
    let destination = this.destinations.get(url.origin);
    if (!destination) {
      const host = bareHost(url.hostname);
      // A literal address is never looked up: it is judged here.
      const refused = isIP(host) !== 0 ? refusedDestination(this.policy, host, host) : undefined;
      const pool = new Pool(url.origin, {
        connections: DESTINATION_CONCURRENCY, pipelining: 1, keepAliveTimeout: KEEP_ALIVE_MS,
        headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs, connect: { lookup: this.lookup, timeout: this.timeoutMs },
      });
      destination = { pool, refused };
      this.destinations.set(url.origin, destination);
    }
    return destination;
  }

  /** Sends one notification (its headers are the notifier's to complete); only a 2xx answer is a success. */
  async send(request: NotificationRequest): Promise<NotifyOutcome> {
    const destination = this.destination(request.url, await loadUndici());
    if (destination.refused) return { ok: false, status: undefined, reason: destination.refused };
    try {
      const answer = await destination.pool.request({
        path: `${request.url.pathname}${request.url.search}`, method: request.method as Dispatcher.HttpMethod, headers: framed(request.headers), body: request.body,
      });
      // Only the status counts; the body is read to its end so that the connection serves the next one.
      await answer.body.dump();
      const status = answer.statusCode;
      return isDelivered(status) ? { ok: true, status } : { ok: false, status, reason: `HTTP ${status}` };
    } catch (error) {
      return { ok: false, status: undefined, reason: reasonOf(error) };
    }
  }

  open(): void {
    void loadUndici();
  }

  close(): void {
    for (const destination of this.destinations.values()) void destination.pool.destroy().catch(() => {});
    this.destinations.clear();
  }
}
