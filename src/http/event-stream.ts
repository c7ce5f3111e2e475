import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Caller } from '../domain/caller.js';
import { eventData, type EventFilter, type LiveEvent } from '../domain/live-events.js';
import type { EventRendering, EventSubscriber } from '../services/live-events.js';

/** How long a closed slow client has to read its last event before its connection is cut. */
const LAST_WORD_MS = 30_000;
/** What a client's EventSource waits before it connects again (ms). */
const RETRY_MS = 2000;

/** Server-Sent Events, as the live stream writes them. */
export const sseRendering: EventRendering = {
  event: (e: LiveEvent) => `id: ${e.seq}\nevent: ${e.kind}\ndata: ${JSON.stringify(eventData(e))}\n\n`,
  reset: (seq: number) => `id: ${seq}\nevent: reset\ndata: {"reason":"The changes after your last event are no longer kept: reload, then follow from here"}\n\n`,
  heartbeat: ': heartbeat\n\n',
};

const OVERFLOW = 'event: overflow\ndata: {"reason":"The client did not keep up with the stream: connect again with Last-Event-ID to resume"}\n\n';

/**
 * One client's text/event-stream connection. What it cannot take at once
 * waits in its socket's buffer, up to a bound: a client that still leaves more
 * than that unread when the next events come is closed with a last `overflow`
 * event, instead of the platform holding its events without limit.
 */
export class EventStreamConnection implements EventSubscriber {
  private open = true;

  constructor(
    private readonly res: ServerResponse,
    readonly filter: EventFilter,
    readonly caller: Caller | undefined,
    readonly key: string,
    private readonly maxUnreadBytes: number,
    private readonly onGone: (connection: EventStreamConnection) => void,
  ) {
    res.on('close', () => this.gone());
  }

  /** Sends the status and headers (those the request's hooks set, plus the stream's own). */
  start(headers: Record<string, string | number | string[] | undefined>): void {
    const given: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) if (value !== undefined) given[name] = typeof value === 'number' ? String(value) : value;
    this.res.writeHead(200, {
      ...given,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      // A stream's connection is never reused: once it ends (a slow client closed), the socket goes too.
      connection: 'close',
    });
    this.res.write(`retry: ${RETRY_MS}\n\n`);
  }

  write(text: string): boolean {
    if (!this.open) return false;
    // Judged before writing: a client still holding more than the bound from before is too slow, however big this batch.
    if (this.res.writableLength > this.maxUnreadBytes) {
      this.overflow();
      return false;
    }
    this.res.write(text);
    return true;
  }

  overflow(): void {
    if (!this.open) return;
    this.open = false;
    this.res.end(OVERFLOW);
    setTimeout(() => this.res.destroy(), LAST_WORD_MS).unref();
    this.onGone(this);
  }

  /** Ends the stream (the server is closing). */
  end(): void {
    if (!this.open) return;
    this.open = false;
    this.res.end();
  }

  private gone(): void {
    if (!this.open) return;
    this.open = false;
    this.onGone(this);
  }
}
