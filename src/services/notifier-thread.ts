import type { MessagePort, Worker } from 'node:worker_threads';
import type { DestinationPolicy } from '../domain/notify-destination.js';
import { startModuleThread, threadPort } from '../module-thread.js';
import { Notifier, type NotificationRequest, type NotificationSender, type NotifyOutcome } from './notifier.js';

/**
 * The notifier in a thread of its own: both ends, this module being the
 * thread's entry too. Each notification is an HTTP request whose sending and
 * answer (the client's work, the socket's calls) cost the event loop more
 * than everything else delivery does; in the server's thread they took the
 * time its requests need, so that delivery fell behind whenever sites wrote.
 * Here they run on another core, and the server's thread only builds each
 * notification and reads its outcome.
 *
 * The thread starts with the first notification (a server with no
 * subscription never starts it). The notifications of one turn of the event
 * loop cross as one message, and their outcomes come back the same way; as
 * JSON, which crosses several times faster than the same objects cloned.
 */

/** Marks the worker that serves as the notifier, in its workerData. */
const NOTIFIER_ROLE = 'opencity-notifier';

/** What the thread is started with. */
interface ThreadData {
  policy: DestinationPolicy;
  timeoutMs: number;
}

/** A notification as it crosses to the thread: its URL as text (a URL object does not cross). */
interface Outgoing extends Omit<NotificationRequest, 'url'> {
  id: number;
  url: string;
}

interface Answered {
  id: number;
  outcome: NotifyOutcome;
}

/** What a notification under way when the thread stopped comes to: a failure, retried as any other. */
const STOPPED: NotifyOutcome = { ok: false, status: undefined, reason: 'notifier stopped' };

/** Gathers what one turn of the event loop adds, and hands it over as one message at the turn's end. */
class TurnBatch<T> {
  private items: T[] = [];

  constructor(private readonly hand: (items: T[]) => void) {}

  add(item: T): void {
    if (this.items.length === 0) setImmediate(() => this.flush());
    this.items.push(item);
  }

  private flush(): void {
    const items = this.items;
    this.items = [];
    if (items.length > 0) this.hand(items);
  }
}

export class NotifierThread implements NotificationSender {
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, (outcome: NotifyOutcome) => void>();
  private lastId = 0;
  private readonly outgoing = new TurnBatch<Outgoing>((items) => this.post(items));

  constructor(private readonly policy: DestinationPolicy, private readonly timeoutMs: number) {}

  send(request: NotificationRequest): Promise<NotifyOutcome> {
    const id = ++this.lastId;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.outgoing.add({ ...request, id, url: request.url.href });
    });
  }

  /** Starts the thread, which then gets its HTTP client ready. */
  open(): void {
    this.worker ??= this.start();
  }

  /** Ends the thread and its connections; what was under way fails as stopped. A later notification starts a new one. */
  close(): void {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) void worker.terminate();
    this.stopped();
  }

  private post(items: Outgoing[]): void {
    // Sent after the thread was closed within the same turn: they fail as stopped.
    const pending = items.filter((item) => this.waiting.has(item.id));
    if (pending.length === 0) return;
    this.open();
    const worker = this.worker as Worker;
    // Held only while notifications are under way: an idle notifier never keeps the process alive.
    worker.ref();
    worker.postMessage(JSON.stringify(pending));
  }

  private start(): Worker {
    // Beside the bundled server: dist/bin/notifier.js, this module built alone (scripts/bundle.mjs).
    const worker = startModuleThread(import.meta.url, 'notifier.js', NOTIFIER_ROLE, { policy: this.policy, timeoutMs: this.timeoutMs } satisfies ThreadData);
    worker.on('message', (message: string) => {
      for (const { id, outcome } of JSON.parse(message) as Answered[]) {
        const resolve = this.waiting.get(id);
        this.waiting.delete(id);
        // JSON leaves out a status that is undefined: the outcome has it again, as the notifier gives it.
        resolve?.(outcome.ok ? outcome : { ok: false, status: outcome.status, reason: outcome.reason });
      }
      if (this.waiting.size === 0) worker.unref();
    });
    const ended = () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.stopped();
    };
    worker.on('error', ended);
    worker.on('exit', ended);
    worker.unref();
    return worker;
  }

  private stopped(): void {
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const resolve of waiting) resolve(STOPPED);
  }
}

/** The thread's end: sends each notification as it comes, and answers with the outcomes of each turn. */
function serve(port: MessagePort, { policy, timeoutMs }: ThreadData): void {
  const notifier = new Notifier(policy, timeoutMs);
  notifier.open();
  const answers = new TurnBatch<Answered>((items) => port.postMessage(JSON.stringify(items)));
  port.on('message', (message: string) => {
    for (const { id, url, ...request } of JSON.parse(message) as Outgoing[]) {
      void notifier.send({ ...request, url: new URL(url) })
        .catch((error: unknown): NotifyOutcome => ({ ok: false, status: undefined, reason: error instanceof Error ? error.message : 'failed' }))
        .then((outcome) => answers.add({ id, outcome }));
    }
  });
}

const thread = threadPort<ThreadData>(NOTIFIER_ROLE);
if (thread) serve(thread.port, thread.data);
