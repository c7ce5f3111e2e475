import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the write path. By default SQLite checkpoints inside the
 * commit that crosses 1,000 WAL pages: the writer stops to copy pages back
 * into the database, and with writes spread over many assets (each touching
 * its own pages) that copying costs the write path much of its throughput
 * and puts stalls in its latency. Here a worker thread, on a connection of
 * its own, runs a PASSIVE checkpoint every few hundred milliseconds (it never
 * blocks the writer or readers), and the writer keeps a high automatic
 * threshold only as a safety net should the worker fall behind.
 *
 * The thread runs only while there are writes to copy back: it starts once
 * writes add up (a start's few writes of keys and clients leave a WAL that
 * needs no thread), and ends, after a last checkpoint, once no write has come
 * for a while. A thread carries an engine instance of its own, whose memory a
 * server that only answers reads has no use for.
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 100_000;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next round retries */ }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  /** A write has changed the file: checkpoints run until writes have stopped for a while. */
  wrote(): void;
  /** Is a checkpointing thread running now? */
  readonly running: boolean;
  /** Ends the checkpoints for good (the store closes). */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  /** Between two checkpoints while writes come. */
  intervalMs?: number;
  /**
   * No thread starts before this long after the checkpointer is made: a start
   * of the server, which also starts the writer's thread, is not slowed by a
   * third thread starting at the same time.
   */
  delayMs?: number;
  /** With no write for this long (and at most twice as long), the thread ends after a last checkpoint. */
  idleMs?: number;
  /** Writes not yet checkpointed that start a thread. */
  startAfterWrites?: number;
}

/** A checkpointing thread, and when it has ended. */
interface Running {
  worker: Worker;
  exited: Promise<void>;
}

export function startCheckpointer(file: string, { intervalMs = 250, delayMs = 1000, idleMs = 5000, startAfterWrites = 64 }: CheckpointerOptions = {}): Checkpointer {
  const notBefore = performance.now() + delayMs;
  let running: Running | undefined;
  /** Writes since the last thread began, which no checkpoint has copied back yet. */
  let unchecked = 0;
  /** Writes came since the idleness was last looked at. */
  let writing = false;
  let starting: NodeJS.Timeout | undefined;
  let idleCheck: NodeJS.Timeout | undefined;
  let stopped = false;
  /** Threads asked to end: closing the store waits for them. */
  const ending = new Set<Promise<void>>();

  const end = (): void => {
    clearInterval(idleCheck);
    idleCheck = undefined;
    const thread = running;
    running = undefined;
    if (!thread) return;
    // Held while it ends, so that a close waiting for it keeps the process alive meanwhile.
    thread.worker.ref();
    thread.worker.postMessage('stop');
    setTimeout(() => void thread.worker.terminate(), 1000).unref();
    ending.add(thread.exited);
    void thread.exited.then(() => ending.delete(thread.exited));
  };

  const lookForIdleness = (): void => {
    if (writing) writing = false;
    else end();
  };

  const start = (): void => {
    starting = undefined;
    if (stopped || running) return;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
    const thread: Running = { worker, exited: new Promise((resolve) => worker.once('exit', () => resolve())) };
    running = thread;
    // Never the reason a process stays alive; errors (a vanished file) only end this thread's checkpointing.
    worker.unref();
    worker.on('error', () => {});
    void thread.exited.then(() => {
      if (running === thread) end();
    });
    idleCheck = setInterval(lookForIdleness, idleMs);
    idleCheck.unref();
  };

  return {
    wrote() {
      writing = true;
      if (running || starting || stopped || ++unchecked < startAfterWrites) return;
      unchecked = 0;
      starting = setTimeout(start, Math.max(0, notBefore - performance.now()));
      starting.unref();
    },
    get running() {
      return running !== undefined;
    },
    async stop() {
      stopped = true;
      clearTimeout(starting);
      end();
      await Promise.all(ending);
    },
  };
}
