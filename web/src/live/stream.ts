import type { TokenSource } from '../api';
import { SseParser } from './sse';

/** An asset change as the live event stream tells it (`data:` of create, update and delete). */
export interface LiveChange {
  seq: number;
  kind: 'create' | 'update' | 'delete';
  id: string;
  type: string;
  site: string;
  position: { latitude: number; longitude: number } | null;
  attributes: Record<string, { type?: string; value?: unknown }>;
  /** ISO 8601: when the platform committed the change. */
  time: string;
}

export type LiveState = 'off' | 'connecting' | 'live';

export interface LiveStreamHandlers {
  /** Changes in commit order, a batch as they arrived. */
  onChanges(changes: LiveChange[]): void;
  /** The platform no longer keeps what was missed: everything shown must be loaded again. */
  onReset(): void;
  onState(state: LiveState): void;
}

const EVENTS = '/discovery/v0/assets/events';
/** Waits before connecting again after a drop: doubling from the first, up to the last. */
const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000];

/**
 * Follows the platform's live event stream (Server-Sent Events) over fetch, so
 * that a signed-in visitor's token goes along. Whenever the connection drops or
 * the query changes, it connects again with Last-Event-ID: no change is missed.
 */
export class LiveStream {
  private query = '';
  private lastId: string | undefined;
  private ctrl: AbortController | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private state: LiveState = 'off';

  constructor(private readonly auth: TokenSource, private readonly handlers: LiveStreamHandlers) {
    window.addEventListener('online', () => {
      if (this.state === 'connecting') this.connectNow();
    });
  }

  /** Follows the changes this query selects (null: none), from the last one seen. */
  follow(query: Record<string, string | undefined> | null): void {
    if (query === null) {
      this.stop();
      return;
    }
    const text = Object.entries(query).filter(([, v]) => v !== undefined && v !== '')
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v as string)}`).join('&');
    if (text === this.query && this.state !== 'off') return;
    this.query = text;
    this.connectNow();
  }

  stop(): void {
    this.ctrl?.abort();
    this.ctrl = null;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.setState('off');
  }

  private connectNow(): void {
    this.ctrl?.abort();
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const ctrl = new AbortController();
    this.ctrl = ctrl;
    this.setState('connecting');
    void this.run(ctrl).then((again) => {
      if (this.ctrl !== ctrl) return;
      if (again === 'now') {
        this.connectNow();
        return;
      }
      const wait = BACKOFF_MS[Math.min(this.failures, BACKOFF_MS.length - 1)]!;
      this.failures++;
      this.setState('connecting');
      this.retry = setTimeout(() => this.connectNow(), wait);
    });
  }

  /** One connection, until it ends: `now` to connect again at once (the platform asked), `later` after a pause. */
  private async run(ctrl: AbortController): Promise<'now' | 'later'> {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    const token = await this.auth.token();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.lastId !== undefined) headers['Last-Event-ID'] = this.lastId;
    let res: Response;
    try {
      res = await fetch(`${EVENTS}${this.query ? `?${this.query}` : ''}`, { headers, signal: ctrl.signal, cache: 'no-store' });
    } catch {
      return 'later';
    }
    if (res.status === 401 && token) this.auth.rejected();
    if (!res.ok || !res.body) return 'later';
    this.failures = 0;
    this.setState('live');
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    let overflowed = false;
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        const changes: LiveChange[] = [];
        for (const m of parser.push(value)) {
          if (m.id !== undefined) this.lastId = m.id;
          if (m.event === 'reset') {
            this.flush(changes);
            this.handlers.onReset();
          } else if (m.event === 'overflow') {
            overflowed = true;
          } else if (m.event === 'create' || m.event === 'update' || m.event === 'delete') {
            try {
              changes.push({ ...(JSON.parse(m.data) as Omit<LiveChange, 'seq' | 'kind'>), seq: Number(m.id), kind: m.event });
            } catch {
              // A message this page cannot read is skipped; the next ones still count.
            }
          }
        }
        this.flush(changes);
      }
    } catch {
      // The connection dropped: connect again from the last id.
    }
    return overflowed ? 'now' : 'later';
  }

  private flush(changes: LiveChange[]): void {
    if (changes.length > 0) this.handlers.onChanges(changes.splice(0));
  }

  private setState(state: LiveState): void {
    if (state === this.state) return;
    this.state = state;
    this.handlers.onState(state);
  }
}
