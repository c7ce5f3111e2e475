import { setTimeout as delay } from 'node:timers/promises';
import type { Caller } from '../domain/caller.js';
import type { Change } from '../domain/changes.js';
import type { Point } from '../domain/geo.js';
import { callerSees, eventMatches, liveEventOf, type EventFilter, type LiveEvent } from '../domain/live-events.js';
import type { Timers } from '../domain/timers.js';
import { assetPositions } from '../storage/repositories/asset-positions.js';
import type { Store } from '../storage/store.js';

/** How often every stream gets a comment, so that proxies and clients know it is alive. */
export const HEARTBEAT_MS = 15_000;
/** The least time between two reads of the change log while changes keep coming: one read then serves many commits. */
const READ_GAP_MS = 100;
/** How long a read of the log waits for a change before looking again. */
const WAIT_MS = 5000;
/** After a failed read, the pause before the next. */
const RETRY_MS = 1000;
/** Events a stream that is still catching up may have waiting behind it before it is closed as too slow. */
const MAX_WAITING_EVENTS = 20_000;
/** Assets whose last position the hub remembers (to tell streams over an area that one left it). */
const MAX_PLACED = 200_000;

/** One client of the stream, as the hub sees it. */
export interface EventSubscriber {
  readonly filter: EventFilter;
  readonly caller: Caller | undefined;
  /** Subscribers with the same key have the same filter and visibility, so they get the same text. */
  readonly key: string;
  /** Sends text; false when the subscriber is gone (it left, or could not keep up and was closed). */
  write(text: string): boolean;
  /** Closes the subscriber as too slow, with a last word to it. */
  overflow(): void;
}

/** How events are written on the wire. */
export interface EventRendering {
  event(e: LiveEvent): string;
  /** Tells the client its last id is no longer in the log: reload, then follow from `seq`. */
  reset(seq: number): string;
  heartbeat: string;
}

interface Member {
  /** The last seq this subscriber has been given (or has no need of). */
  cursor: number;
  /** While it catches up from an older seq: the live events that arrived meanwhile, in order. */
  waiting: LiveEvent[] | undefined;
}

const passes = (sub: EventSubscriber, e: LiveEvent): boolean => eventMatches(sub.filter, e) && callerSees(sub.caller, e);

/**
 * The live event stream of one process: one reader of the change log fans
 * each batch out to every connected client, so a thousand clients cost the
 * store what one does. Clients with the same filter and visibility share the
 * text of a batch. A client resuming from an older change first reads the log
 * from there on its own, while the live batches wait for it in order.
 */
export class LiveEventHub {
  private readonly members = new Map<EventSubscriber, Member>();
  private readonly frames = new WeakMap<LiveEvent, string>();
  /** Where the store last placed each asset the hub told of (insertion order: the oldest is forgotten first). */
  private readonly placed = new Map<string, Point>();
  /** The last seq read from the log and fanned out. */
  private cursor = 0;
  private starting: Promise<void> | undefined;
  private closed = false;
  private wakeClosed: (() => void) | undefined;
  private readonly closing = new Promise<false>((resolve) => {
    this.wakeClosed = () => resolve(false);
  });
  private readonly stopHeartbeat: () => void;

  constructor(
    private readonly store: Store,
    timers: Timers,
    private readonly render: EventRendering,
    private readonly maxClients: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.stopHeartbeat = timers.every(HEARTBEAT_MS, () => this.heartbeat());
  }

  get clients(): number {
    return this.members.size;
  }

  isFull(): boolean {
    return this.members.size >= this.maxClients;
  }

  /**
   * Whether a client that saw change `seq` can resume right after it: nothing
   * after it was pruned, and it is not ahead of the log (an id from elsewhere).
   */
  async canResume(seq: number): Promise<boolean> {
    const [oldest, latest] = await Promise.all([this.store.changes.oldest(), this.store.changes.latest()]);
    if (seq > Math.max(latest, this.cursor)) return false;
    if (oldest === undefined) return seq >= latest;
    return seq >= oldest - 1;
  }

  /**
   * Adds a subscriber. With `after`, it gets every change after that seq
   * first; with `reset`, it is first told to reload. Resolves once it is live.
   */
  async join(sub: EventSubscriber, options: { after?: number; reset?: boolean } = {}): Promise<void> {
    await this.start();
    if (this.closed) return;
    const { after } = options;
    if (after === undefined || after >= this.cursor) {
      this.members.set(sub, { cursor: after ?? this.cursor, waiting: undefined });
      if (options.reset && !sub.write(this.render.reset(this.cursor))) this.members.delete(sub);
      return;
    }
    const member: Member = { cursor: after, waiting: [] };
    this.members.set(sub, member);
    try {
      await this.catchUp(sub, member, after, this.cursor);
    } catch (error) {
      this.members.delete(sub);
      throw error;
    }
  }

  leave(sub: EventSubscriber): void {
    this.members.delete(sub);
  }

  close(): void {
    this.closed = true;
    this.stopHeartbeat();
    this.wakeClosed?.();
    this.members.clear();
  }

  /** Reads the log from `after` to `until` for one subscriber, then gives it what waited meanwhile. */
  private async catchUp(sub: EventSubscriber, member: Member, after: number, until: number): Promise<void> {
    const placed = new Map<string, Point>();
    let seq = after;
    while (seq < until && this.members.has(sub)) {
      const page = (await this.store.changes.after(seq)).filter((c) => c.seq <= until);
      if (page.length === 0) break;
      const events = await this.eventsOf(page, placed, false);
      seq = (page[page.length - 1] as Change).seq;
      const text = this.textOf(events.filter((e) => passes(sub, e)));
      if (text !== '' && !sub.write(text)) {
        this.members.delete(sub);
        return;
      }
    }
    if (!this.members.has(sub)) return;
    const waiting = (member.waiting ?? []).filter((e) => e.seq > seq);
    member.waiting = undefined;
    member.cursor = waiting.length > 0 ? (waiting[waiting.length - 1] as LiveEvent).seq : Math.max(seq, member.cursor);
    const text = this.textOf(waiting.filter((e) => passes(sub, e)));
    if (text !== '' && !sub.write(text)) this.members.delete(sub);
  }

  /** Starts the reader when none runs; resolves once the hub knows where the log ends. */
  private start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.starting ??= this.store.changes.latest().then(
      (seq) => {
        this.cursor = Math.max(this.cursor, seq);
        void this.follow();
      },
      (error: unknown) => {
        this.starting = undefined;
        throw error;
      },
    );
    return this.starting;
  }

  /** The one reader: follows the log while anyone listens, then stops until someone joins again. */
  private async follow(): Promise<void> {
    let lastRead = 0;
    // The joiner that started the reader is counted before the reader first asks whether anyone listens.
    await delay(0);
    while (!this.closed) {
      try {
        const changed = await Promise.race([this.store.changes.waitAfter(this.cursor, WAIT_MS), this.closing]);
        if (this.members.size === 0) break;
        if (!changed || this.closed) continue;
        const gap = lastRead + READ_GAP_MS - Date.now();
        if (gap > 0) await delay(gap);
        lastRead = Date.now();
        const page = await this.store.changes.after(this.cursor);
        if (page.length === 0 || this.closed) continue;
        const events = await this.eventsOf(page, this.placed, true);
        this.cursor = (page[page.length - 1] as Change).seq;
        this.fanOut(events);
      } catch (error) {
        if (this.closed) return;
        this.onError(error);
        await Promise.race([delay(RETRY_MS), this.closing]);
      }
    }
    // Decided in the same turn as the check above: whoever joins next starts a new reader.
    this.starting = undefined;
  }

  private async eventsOf(page: readonly Change[], placed: Map<string, Point>, bounded: boolean): Promise<LiveEvent[]> {
    const stored = await assetPositions(this.store, page.filter((c) => !placed.has(c.assetId) || c.kind === 'create').map((c) => c.assetId));
    return page.map((change) => {
      const event = liveEventOf(change, stored.get(change.assetId), placed.get(change.assetId));
      placed.delete(change.assetId);
      if (event.kind !== 'delete' && event.position) placed.set(change.assetId, event.position);
      if (bounded && placed.size > MAX_PLACED) placed.delete(placed.keys().next().value as string);
      return event;
    });
  }

  private fanOut(events: readonly LiveEvent[]): void {
    if (events.length === 0) return;
    const first = (events[0] as LiveEvent).seq;
    const last = (events[events.length - 1] as LiveEvent).seq;
    const shared = new Map<string, string>();
    for (const [sub, member] of this.members) {
      if (member.waiting) {
        member.waiting.push(...events);
        if (member.waiting.length > MAX_WAITING_EVENTS) this.drop(sub, true);
        continue;
      }
      let text: string;
      if (member.cursor < first) {
        const known = shared.get(sub.key);
        text = known ?? this.textOf(events.filter((e) => passes(sub, e)));
        if (known === undefined) shared.set(sub.key, text);
      } else {
        text = this.textOf(events.filter((e) => e.seq > member.cursor && passes(sub, e)));
      }
      member.cursor = Math.max(member.cursor, last);
      if (text !== '' && !sub.write(text)) this.drop(sub, false);
    }
  }

  private textOf(events: readonly LiveEvent[]): string {
    let text = '';
    for (const e of events) {
      let frame = this.frames.get(e);
      if (frame === undefined) {
        frame = this.render.event(e);
        this.frames.set(e, frame);
      }
      text += frame;
    }
    return text;
  }

  private heartbeat(): void {
    for (const [sub, member] of this.members) {
      if (!member.waiting && !sub.write(this.render.heartbeat)) this.drop(sub, false);
    }
  }

  private drop(sub: EventSubscriber, tooSlow: boolean): void {
    this.members.delete(sub);
    if (tooSlow) sub.overflow();
  }
}
