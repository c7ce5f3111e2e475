import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** One message of a text/event-stream: an event, or a comment (a heartbeat). */
export interface StreamMessage {
  id: string | undefined;
  event: string;
  data: string;
  comment: string | undefined;
}

export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: Record<string, unknown>;
}

/** Splits text/event-stream text into messages; returns what is left of an unfinished one. */
export function parseMessages(text: string, into: StreamMessage[]): string {
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    const message: StreamMessage = { id: undefined, event: 'message', data: '', comment: undefined };
    let any = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        message.comment = line.slice(1).trim();
        any = true;
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') message.data = message.data === '' ? value : `${message.data}\n${value}`;
      else continue;
      any = true;
    }
    if (any) into.push(message);
  }
  return rest;
}

/** Where a listening app answers, on loopback. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * A client of the live event stream over a real loopback connection. Waits
 * are bounded: a test that does not get what it waits for fails, it never hangs.
 */
export class EventStreamClient {
  readonly messages: StreamMessage[] = [];
  private readonly parsed: StreamEvent[] = [];
  private rest = '';
  private readonly listeners = new Set<() => void>();
  ended = false;

  private constructor(private readonly request: http.ClientRequest, readonly response: http.IncomingMessage, readonly body: string) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const from = this.messages.length;
      this.rest = parseMessages(this.rest + chunk, this.messages);
      for (const m of this.messages.slice(from)) {
        if (m.comment === undefined) this.parsed.push({ id: m.id, event: m.event, data: m.data === '' ? {} : JSON.parse(m.data) as Record<string, unknown> });
      }
      this.notify();
    });
    response.on('end', () => {
      this.ended = true;
      this.notify();
    });
    response.on('error', () => {
      this.ended = true;
      this.notify();
    });
  }

  /** Opens the stream; a non-200 answer is read whole (body). */
  static open(base: string, path: string, headers: Record<string, string> = {}): Promise<EventStreamClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(`${base}${path}`, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        if (response.statusCode !== 200) {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (c: string) => { body += c; });
          response.on('end', () => resolve(new EventStreamClient(request, response, body)));
          return;
        }
        resolve(new EventStreamClient(request, response, ''));
      });
      request.on('error', reject);
    });
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  /** The events received so far (comments left out), data parsed. */
  events(): StreamEvent[] {
    return [...this.parsed];
  }

  comments(): string[] {
    return this.messages.filter((m) => m.comment !== undefined).map((m) => m.comment as string);
  }

  /** Resolves once `count` events have arrived in all; fails after `ms`. */
  async waitForEvents(count: number, ms = 15_000): Promise<StreamEvent[]> {
    await this.waitFor(() => this.parsed.length >= count, `${count} events (got ${this.parsed.length})`, ms);
    return this.events();
  }

  /** Resolves once `count` comments have arrived in all. */
  async waitForComments(count: number, ms = 15_000): Promise<void> {
    await this.waitFor(() => this.comments().length >= count, `${count} comments`, ms);
  }

  async waitForEnd(ms = 15_000): Promise<void> {
    await this.waitFor(() => this.ended, 'the end of the stream', ms);
  }

  close(): void {
    this.request.destroy();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private waitFor(done: () => boolean, what: string, ms: number): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = () => {
        if (!done()) {
          if (this.ended) finish(new Error(`the stream ended before ${what}`));
          return;
        }
        finish();
      };
      const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), ms);
      const finish = (error?: Error) => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        if (error) reject(error);
        else resolve();
      };
      this.listeners.add(listener);
    });
  }
}
