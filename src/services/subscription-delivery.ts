import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { NgsiAttributes } from '../domain/asset-body.js';
import type { Change } from '../domain/changes.js';
import type { Clock } from '../domain/clock.js';
import { exceedsFailsLimit, retryDelayMs } from '../domain/delivery-retry.js';
import type { DestinationPolicy } from '../domain/notify-destination.js';
import { notificationUrl, type SubscriptionDefinition, type SubscriptionStatus } from '../domain/subscription.js';
import { compileSubscription, notificationBody, notifies, positionAfter, stateAfter, type AssetState, type CompiledSubscription } from '../domain/subscription-match.js';
import type { VisibleAssets } from '../domain/visible-assets.js';
import { VERSION } from '../version.js';
import {
  claimLease, liveSubscriptions, releaseLeases, renewLeases, saveProgress, saveProgressOf, type DeliveryProgress, type SubscriptionRow,
} from '../storage/repositories/subscriptions.js';
import type { Store } from '../storage/store.js';
import { DeliveryReads, type KnownAsset } from './delivery-reads.js';
import type { NotificationSender } from './notifier.js';
import { NotifierThread } from './notifier-thread.js';
import { DeliveryPace, serverSignals } from './delivery-pace.js';
import { DeliveryCursor } from '../domain/delivery-cursor.js';
import type { Timers } from '../domain/timers.js';

/**
 * Delivers the notifications of NGSI v2 subscriptions from the change log, at
 * least once and in order. Each subscription keeps a durable cursor (the seq
 * of the last change it handled); its process reads the changes after it,
 * sends one notification per matching change and moves the cursor past what
 * was answered with a 2xx. A failure keeps the cursor where it is and is tried
 * again after a growing wait, so later changes wait behind it.
 *
 * Several processes may share one store: a subscription is delivered by the
 * process holding its lease, renewed every look (once a second) and taken over
 * by another process once it has lapsed (at once when its holder was a process
 * of the same machine that no longer runs); every process looks at the
 * subscriptions once a second, so a new one is live everywhere within it.
 */

/** How often the subscriptions are looked at (new ones, changed ones, lapsed leases). */
const LOOK_EVERY_MS = 1000;
/** How long a lease holds unless renewed: a dead process's subscriptions are taken over after at most this. */
export const LEASE_MS = 15_000;
/** Changes read at once. */
const PAGE = 1000;
/** Pages a throttled subscription coalesces at most in one window. */
const MAX_WINDOW_PAGES = 50;
/** How soon delivery progress is written after it moved (a crash sends at most this much again). */
const FLUSH_MS = 200;
/** Notifications of one subscription under way at once (never two of one asset). */
const SUBSCRIPTION_CONCURRENCY = 16;
/** How long a wait for new changes lasts before the subscription is looked at again. */
const WAIT_MS = 1000;

export interface DeliveryOptions {
  store: Store;
  clock: Clock;
  timers: Timers;
  policy: DestinationPolicy;
  timeoutMs: number;
  /** Fiware-Service of every notification (PLATFORM_SERVICE_NAME). */
  service: string;
  registry: Registry | undefined;
  onError(error: unknown, what: string): void;
}

interface DeliveryMetrics {
  delivered: Counter<'subscription' | 'destination'>;
  failed: Counter<'subscription' | 'destination'>;
}

/** One notification to send: the change, and the asset's state after it. */
interface Pending {
  change: Change;
  attributes: NgsiAttributes;
}

/** The notifications of one subscription under way: at most `width`, never two of one asset. */
class UnderWay {
  private readonly running = new Set<Promise<void>>();
  private readonly assets = new Set<string>();
  constructor(private readonly width: number) {}

  get size(): number {
    return this.running.size;
  }

  /** Waits until a notification of `asset` may start, or `halted` holds. */
  async room(asset: string, halted: () => boolean): Promise<void> {
    while ((this.running.size >= this.width || this.assets.has(asset)) && !halted()) await Promise.race(this.running);
  }

  start(asset: string, sending: Promise<void>): void {
    this.assets.add(asset);
    const tracked: Promise<void> = sending.finally(() => {
      this.running.delete(tracked);
      this.assets.delete(asset);
    });
    this.running.add(tracked);
  }

  /** Resolves once every notification started is answered. */
  async settled(): Promise<void> {
    await Promise.all(this.running);
  }
}

class Worker {
  private stopped = false;
  private wakeStop: (() => void) | undefined;
  private readonly stopSignal: Promise<void>;
  // Read from the stored definition by take(), in the constructor and at each PATCH.
  private compiled!: CompiledSubscription;
  /** The conditions a change is first looked at with (kind and entity), before its asset's state is read. */
  private loose!: CompiledSubscription;
  /** httpCustom.headers, their names in lower case. */
  private customHeaders!: Record<string, string>;
  /** The stored texts the definition was read from (a look compares them to see a PATCH). */
  private source!: { definition: string; visible: string };
  private definition!: SubscriptionDefinition;
  private status: SubscriptionStatus;
  private expiresAt: number | null;
  cursor: number;
  private savedCursor: number;
  private progress: DeliveryProgress = {};
  private state: Required<Pick<DeliveryProgress, 'times_sent' | 'fails_counter'>>;
  private retryAt = 0;
  private windowEndsAt = 0;
  readonly done: Promise<void>;

  constructor(private readonly service: SubscriptionDelivery, readonly id: string, row: SubscriptionRow) {
    this.take(row);
    this.status = row.status;
    this.expiresAt = row.expires_at;
    this.cursor = row.cursor;
    this.savedCursor = row.cursor;
    this.state = { times_sent: row.times_sent, fails_counter: row.fails_counter };
    // A failure before a restart or a takeover is tried again at once: the wait is not stored.
    this.stopSignal = new Promise<void>((resolve) => {
      this.wakeStop = resolve;
    });
    this.done = this.run().catch((error: unknown) => service.options.onError(error, `delivering subscription ${id}`));
  }

  /** Where notifications go (the URL with httpCustom's qs), read once per definition. */
  private target!: URL;

  /** Reads the stored definition and what is derived from it. */
  private take(row: SubscriptionRow): void {
    this.source = { definition: row.definition, visible: row.visible };
    this.definition = JSON.parse(row.definition) as SubscriptionDefinition;
    this.target = Worker.targetOf(this.definition);
    this.compiled = compileSubscription(this.definition, JSON.parse(row.visible) as VisibleAssets);
    this.loose = Worker.looseOf(this.compiled);
    this.customHeaders = Worker.headersOf(this.definition);
  }

  private static targetOf(definition: SubscriptionDefinition): URL {
    const url = notificationUrl(definition);
    for (const [name, value] of Object.entries(definition.notification.httpCustom?.qs ?? {})) url.searchParams.append(name, value);
    return url;
  }

  private static looseOf(compiled: CompiledSubscription): CompiledSubscription {
    return { ...compiled, query: undefined, geo: undefined, visible: { all: true }, conditionAttrs: [] };
  }

  private static headersOf(definition: SubscriptionDefinition): Record<string, string> {
    return Object.fromEntries(Object.entries(definition.notification.httpCustom?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  }

  get destination(): string {
    return this.target.origin;
  }

  /** Takes a changed definition (PATCH), keeping the cursor and the counters. */
  update(row: SubscriptionRow): void {
    if (row.definition !== this.source.definition || row.visible !== this.source.visible) this.take(row);
    this.status = row.status;
    this.expiresAt = row.expires_at;
  }

  stop(): void {
    this.stopped = true;
    this.wakeStop?.();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Waiting for a retry or a throttling window, rather than for changes? */
  get isHeld(): boolean {
    const now = this.service.options.clock.now();
    return this.retryAt > now || this.windowEndsAt > now;
  }

  private sleep(ms: number): Promise<void> {
    const { timers } = this.service.options;
    let handle: unknown;
    return Promise.race([
      new Promise<void>((resolve) => {
        handle = timers.setTimeout(resolve, ms);
      }),
      this.stopSignal,
    ]).finally(() => timers.clearTimeout(handle));
  }

  /** Stopped, with its last progress written: the subscription may be taken up afresh. */
  finished = false;
  /** Waiting (for changes, a retry or a window), with nothing under way. */
  idle = false;

  private async idleWhile(wait: Promise<unknown>): Promise<void> {
    this.idle = true;
    this.service.progressed();
    try {
      await wait;
    } finally {
      this.idle = false;
    }
  }

  private async run(): Promise<void> {
    const { store, clock } = this.service.options;
    while (!this.stopped) {
      const now = clock.now();
      if (this.expiresAt !== null && this.expiresAt <= now) break;
      const heldUntil = Math.max(this.retryAt, this.windowEndsAt);
      if (heldUntil > now) {
        await this.idleWhile(this.sleep(heldUntil - now));
        continue;
      }
      const caughtUp = (this.definition.throttling ?? 0) > 0 ? await this.deliverWindow() : await this.deliverInOrder();
      if (this.stopped) break;
      if (caughtUp) {
        this.service.flushSoon();
        await this.idleWhile(Promise.race([store.changes.waitAfter(this.cursor, WAIT_MS), this.stopSignal]));
      }
    }
    this.stopped = true;
    this.finished = true;
    this.service.progressed();
  }

  /**
   * The notifications the changes after `after` make, and the seq they take
   * the cursor to once delivered; undefined when there is no change. A
   * throttled subscription coalesces: the latest state of each asset.
   */
  private async pendingNotifications(after: number, throttled: boolean): Promise<{ items: Pending[]; through: number } | undefined> {
    const { reads } = this.service;
    let changes = await reads.changesAfter(after);
    if (changes.length === 0) return undefined;
    if (throttled) {
      for (let pages = 1; pages < MAX_WINDOW_PAGES && changes.length === pages * PAGE; pages++) {
        changes = changes.concat(await reads.changesAfter((changes[changes.length - 1] as Change).seq));
      }
    }
    const through = (changes[changes.length - 1] as Change).seq;
    const candidates = changes.filter((c) => this.mayNotify(c));
    const rows = candidates.length > 0 ? await reads.assetStatesFor(candidates) : new Map<string, KnownAsset>();
    const items: Pending[] = [];
    const latestOf = new Map<string, Pending>();
    for (const change of candidates) {
      const row = rows.get(change.assetId);
      const attributes = stateAfter(change, row?.attributes);
      const known = row ? { latitude: row.latitude, longitude: row.longitude } : undefined;
      const state: AssetState = {
        site: row?.site ?? change.site, experimenter: row?.experimenter ?? null, experiment: row?.experiment ?? null,
        attributes, position: positionAfter(change, known),
      };
      if (!notifies(this.compiled, change, state)) continue;
      if (throttled) {
        latestOf.delete(change.assetId);
        latestOf.set(change.assetId, { change, attributes });
      } else {
        items.push({ change, attributes });
      }
    }
    return { items: throttled ? [...latestOf.values()] : items, through };
  }

  /** A cheap first look (kind and entity), before the asset's state is read. */
  private mayNotify(change: Change): boolean {
    const probe: AssetState = { site: '', experimenter: null, experiment: null, attributes: change.attributes, position: undefined };
    return notifies(this.loose, change, probe);
  }

  /**
   * Sends the notifications of the changes after the cursor, several at once
   * but never two of one asset, so that each asset's changes arrive in order;
   * the next page is read and started while the last ones of the one before
   * are answered. The cursor moves past a change once it and every change
   * before it were delivered. After a failure no other is started, and the
   * cursor stays before the first one not delivered (those delivered after it
   * are sent again with it: at least once). True when caught up with the log,
   * nothing under way.
   */
  private async deliverInOrder(): Promise<boolean> {
    const { store } = this.service.options;
    const oneshot = this.status === 'oneshot';
    const order = new DeliveryCursor(this.cursor);
    const underWay = new UnderWay(oneshot ? 1 : SUBSCRIPTION_CONCURRENCY);
    let failed = false;
    const halted = () => failed || this.stopped;
    let readAfter = this.cursor;
    let caughtUp = false;
    // A change of the subscription's kind (a PATCH) or its expiry is taken up between pages, as the run loop takes it.
    const unchanged = () => (this.status === 'oneshot') === oneshot && !((this.definition.throttling ?? 0) > 0)
      && (this.expiresAt === null || this.expiresAt > this.service.options.clock.now());
    while (!halted() && unchanged()) {
      const pending = await this.pendingNotifications(readAfter, false);
      if (halted()) break;
      if (pending === undefined) {
        if (underWay.size === 0) {
          caughtUp = true;
          break;
        }
        // The log is read to its end while the last notifications are answered: go on with the next change, or once they are.
        await Promise.race([underWay.settled(), store.changes.waitAfter(readAfter, WAIT_MS), this.stopSignal]);
        continue;
      }
      for (const item of pending.items) {
        await underWay.room(item.change.assetId, halted);
        if (halted()) break;
        const ticket = order.add(item.change.seq);
        const sending = this.deliver(item).then((outcome) => {
          if (outcome === 'delivered') this.cursor = order.settle(ticket);
          else failed = true;
        });
        underWay.start(item.change.assetId, sending);
        if (oneshot) {
          await sending;
          if (!failed && !this.stopped) {
            await this.turnInactiveAfterOneshot();
            return false;
          }
        }
      }
      if (halted()) break;
      this.cursor = order.pass(pending.through);
      readAfter = pending.through;
      this.service.flushSoon();
    }
    await underWay.settled();
    // Stopped from outside (the process closes, the subscription changed hands): what was not answered is sent again later.
    if (this.stopped && this.progress.status !== 'inactive') return false;
    if (failed) await this.failedOnce();
    return caughtUp;
  }

  /**
   * Sends a throttling window's notifications (the latest state of each asset
   * that changed), then holds the subscription until the window ends. A
   * failure redoes the window whole.
   */
  private async deliverWindow(): Promise<boolean> {
    const { clock } = this.service.options;
    const before = this.cursor;
    const pending = await this.pendingNotifications(before, true);
    if (this.stopped) return false;
    if (pending === undefined) return true;
    const oneshot = this.status === 'oneshot';
    const underWay = new UnderWay(oneshot ? 1 : SUBSCRIPTION_CONCURRENCY);
    let failed = false;
    const halted = () => failed || this.stopped;
    for (const item of pending.items) {
      await underWay.room(item.change.assetId, halted);
      if (halted()) break;
      const sending = this.deliver(item).then((outcome) => {
        if (outcome !== 'delivered') failed = true;
      });
      underWay.start(item.change.assetId, sending);
      if (oneshot) {
        await sending;
        if (!failed && !this.stopped) {
          this.cursor = pending.through;
          await this.turnInactiveAfterOneshot();
          return false;
        }
      }
    }
    await underWay.settled();
    if (this.stopped && this.progress.status !== 'inactive') return false;
    if (failed || this.stopped) {
      await this.failedOnce();
      return false;
    }
    this.cursor = pending.through;
    if (pending.items.length > 0) this.windowEndsAt = clock.now() + (this.definition.throttling ?? 0) * 1000;
    this.service.flushSoon();
    return false;
  }

  /** A oneshot subscription delivered its notification: it turns inactive, written at once. */
  private async turnInactiveAfterOneshot(): Promise<void> {
    this.status = 'inactive';
    this.progress.status = 'inactive';
    await this.save();
    this.stop();
  }

  /** After a failure: turning inactive is written at once; the rest with the next flush. */
  private async failedOnce(): Promise<void> {
    if (this.progress.status === 'inactive') await this.save();
    else this.service.flushSoon();
  }

  private async deliver(item: Pending): Promise<'delivered' | 'failed' | 'abandoned'> {
    const { clock, service } = this.service.options;
    // Delivery gives way to the requests the server answers (./delivery-pace.ts).
    const turn = this.service.pace.take();
    if (turn) await turn;
    if (this.stopped) return 'abandoned';
    const url = this.target;
    const custom = this.definition.notification.httpCustom;
    const { format, body } = notificationBody(this.id, this.definition, item.change, item.attributes);
    const headers: Record<string, string> = {
      ...this.customHeaders,
      'content-type': 'application/json',
      'fiware-service': service,
      'fiware-servicepath': '/',
      // Neither can be overridden by httpCustom.headers (Orion's rule).
      'fiware-correlator': randomUUID(),
      'ngsiv2-attrsformat': format,
      'opencity-change-seq': String(item.change.seq),
      'user-agent': `opencity/${VERSION}`,
    };
    const outcome = await this.service.notifier.send({ url, method: custom?.method ?? 'POST', headers, body: JSON.stringify(body) });
    // Stopping (the process closes) abandons what was under way: it is not the receiver's failure.
    if (this.stopped) return 'abandoned';
    const now = clock.now();
    this.state.times_sent++;
    this.progress.times_sent = this.state.times_sent;
    this.progress.last_notification = now;
    const counters = this.countersOf(url.origin);
    if (outcome.ok) {
      this.state.fails_counter = 0;
      Object.assign(this.progress, { last_success: now, last_success_code: outcome.status, fails_counter: 0 });
      counters?.delivered.inc();
      return 'delivered';
    }
    this.state.fails_counter++;
    Object.assign(this.progress, { last_failure: now, last_failure_reason: outcome.reason, fails_counter: this.state.fails_counter });
    counters?.failed.inc();
    if (exceedsFailsLimit(this.state.fails_counter, this.definition.notification.maxFailsLimit)) {
      this.status = 'inactive';
      this.progress.status = 'inactive';
      this.service.options.onError(new Error(`${outcome.reason}; ${this.state.fails_counter} consecutive failures`), `subscription ${this.id} turned inactive`);
      this.stop();
    } else {
      this.retryAt = now + retryDelayMs(this.state.fails_counter);
    }
    return 'failed';
  }

  private counters: { destination: string; delivered: { inc(): void }; failed: { inc(): void } } | undefined;

  /** This subscription's delivered and failed counters for `destination`, found once rather than at every notification. */
  private countersOf(destination: string): { delivered: { inc(): void }; failed: { inc(): void } } | undefined {
    const { metrics } = this.service;
    if (!metrics) return undefined;
    if (this.counters?.destination !== destination) {
      const labels = { subscription: this.id, destination };
      this.counters = { destination, delivered: metrics.delivered.labels(labels), failed: metrics.failed.labels(labels) };
    }
    return this.counters;
  }

  /** The cursor and status fields that moved since the last write (and forgets them), or undefined. */
  takeProgress(): DeliveryProgress | undefined {
    if (Object.keys(this.progress).length === 0 && this.savedCursor === this.cursor) return undefined;
    const progress = { ...this.progress, cursor: this.cursor };
    this.progress = {};
    this.savedCursor = this.cursor;
    return progress;
  }

  /** Writes what moved now; false when the lease is lost (or the subscription gone). */
  async save(): Promise<boolean> {
    const progress = this.takeProgress();
    if (!progress) return true;
    const kept = await saveProgress(this.service.options.store, this.id, this.service.holder, progress);
    if (!kept) this.stop();
    return kept;
  }
}

/**
 * Is the holder of a lease a process of this machine that no longer runs? A
 * server restarted after a crash takes its predecessor's subscriptions at
 * once instead of waiting for their leases to lapse.
 */
function isDeadHere(holder: string): boolean {
  const parts = holder.split(':');
  const pid = Number(parts[parts.length - 2]);
  if (parts.slice(0, -2).join(':') !== os.hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

export class SubscriptionDelivery {
  /** This process, as leases name it. */
  readonly holder = `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  readonly notifier: NotificationSender;
  readonly reads: DeliveryReads;
  readonly pace: DeliveryPace;
  readonly metrics: DeliveryMetrics | undefined;
  private readonly workers = new Map<string, Worker>();
  private refreshing: Promise<void> | undefined;
  private again = false;
  private timer: unknown;
  private stopped = false;
  private readonly watchers = new Set<() => void>();

  get policy(): DestinationPolicy {
    return this.options.policy;
  }

  constructor(readonly options: DeliveryOptions) {
    this.notifier = new NotifierThread(options.policy, options.timeoutMs);
    this.reads = new DeliveryReads(options.store, PAGE);
    this.pace = new DeliveryPace(serverSignals(() => options.store.writes.writeTimeMs()));
    const registry = options.registry;
    if (registry) {
      const labelNames = ['subscription', 'destination'] as const;
      this.metrics = {
        delivered: new Counter({ name: 'opencity_notifications_delivered_total', help: 'Notifications answered with 2xx, by subscription and destination', labelNames, registers: [registry] }),
        failed: new Counter({ name: 'opencity_notifications_failed_total', help: 'Notifications that failed (non-2xx, timeout, refused), by subscription and destination', labelNames, registers: [registry] }),
      };
      const workers = this.workers;
      const store = options.store;
      new Gauge({
        name: 'opencity_notifications_pending', help: 'Changes after the cursor of each subscription this process delivers, by subscription and destination',
        labelNames, registers: [registry],
        async collect() {
          this.reset();
          if (workers.size === 0) return;
          const latest = await store.changes.latest();
          for (const worker of workers.values()) this.set({ subscription: worker.id, destination: worker.destination }, Math.max(0, latest - worker.cursor));
        },
      });
    }
  }

  private flushTimer: unknown;
  private flushing: Promise<void> | undefined;

  /**
   * Writes delivery progress within FLUSH_MS: every subscription's in one
   * transaction, so that progress costs the store's writers one short
   * transaction now and then rather than one per page of notifications.
   */
  flushSoon(): void {
    if (this.flushTimer !== undefined || this.stopped) return;
    this.flushTimer = this.options.timers.setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, FLUSH_MS);
  }

  /** Writes the progress of every subscription now; a subscription whose lease was lost stops. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    const batch = [...this.workers.values()].flatMap((w) => {
      const progress = w.takeProgress();
      return progress ? [{ id: w.id, progress }] : [];
    });
    if (batch.length === 0) return;
    this.flushing = saveProgressOf(this.options.store, this.holder, batch)
      .then((lost) => {
        for (const id of lost) this.workers.get(id)?.stop();
      })
      .catch((error: unknown) => this.options.onError(error, 'writing delivery progress'))
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  /** Starts looking at the subscriptions, now and once a second. */
  start(): void {
    const look = () => {
      if (this.stopped) return;
      void this.refresh().finally(() => {
        if (!this.stopped) this.timer = this.options.timers.setTimeout(look, LOOK_EVERY_MS);
      });
    };
    look();
  }

  /** Looks at the subscriptions now (a route changed one): new ones start, changed ones take the change, gone ones stop. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.again = false;
        try {
          await this.look();
        } catch (error) {
          this.options.onError(error, 'looking at the subscriptions');
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async look(): Promise<void> {
    if (this.stopped) return;
    const { store, clock } = this.options;
    const now = clock.now();
    const rows = await liveSubscriptions(store, now);
    const live = new Map(rows.map((r) => [r.id, r]));
    for (const [id, worker] of this.workers) {
      if (!live.has(id) || worker.finished) this.drop(id);
    }
    const held = await renewLeases(store, this.holder, [...this.workers.keys()], now + LEASE_MS);
    for (const id of this.workers.keys()) if (!held.has(id)) this.drop(id);
    for (const row of rows) {
      if (this.stopped) return;
      const worker = this.workers.get(row.id);
      if (worker) {
        // One stopping still writes its last progress: taken up again at the next look.
        if (!worker.isStopped) worker.update(row);
        continue;
      }
      const held = row.lease_holder !== null && row.lease_holder !== this.holder && (row.lease_until ?? 0) >= now;
      const gone = held && isDeadHere(row.lease_holder as string) ? (row.lease_holder as string) : undefined;
      if (held && gone === undefined) continue;
      const claimed = await claimLease(store, row.id, this.holder, now, now + LEASE_MS, gone);
      if (!claimed || this.stopped) continue;
      this.workers.set(row.id, new Worker(this, row.id, claimed));
      // Ready before the subscription's first notification, which would otherwise wait for it.
      this.notifier.open();
    }
  }

  private drop(id: string): void {
    this.workers.get(id)?.stop();
    this.workers.delete(id);
    this.progressed();
  }

  /** A worker moved (its cursor, or it waits, or it stopped). */
  progressed(): void {
    for (const watcher of [...this.watchers]) watcher();
  }

  /**
   * Resolves once every subscription this process delivers has handled the
   * changes up to `seq`, or waits for a retry or a throttling window, or has
   * stopped (what tests and benchmarks wait on).
   */
  async handled(seq: number): Promise<void> {
    await this.refresh();
    await new Promise<void>((resolve) => {
      const check = () => {
        const busy = [...this.workers.values()].some((w) => !w.isStopped && !(w.idle && (w.cursor >= seq || w.isHeld)));
        if (!busy) {
          this.watchers.delete(check);
          resolve();
        }
      };
      this.watchers.add(check);
      check();
    });
    // A worker that stopped itself (turned inactive) writes that in its own run: wait for it.
    await Promise.all([...this.workers.values()].filter((w) => w.isStopped).map((w) => w.done));
    await this.flush();
  }

  /** Stops delivering: the work under way ends, progress is written, leases are given up for another process. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.options.timers.clearTimeout(this.timer);
    this.options.timers.clearTimeout(this.flushTimer);
    await this.refreshing;
    const workers = [...this.workers.values()];
    for (const worker of workers) worker.stop();
    this.notifier.close();
    this.pace.close();
    await Promise.all(workers.map((w) => w.done));
    await this.flush();
    this.workers.clear();
    await releaseLeases(this.options.store, this.holder).catch((error: unknown) => this.options.onError(error, 'giving up the subscription leases'));
  }
}
