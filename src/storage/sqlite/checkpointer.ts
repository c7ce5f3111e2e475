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
 */
export const WRITER_AUTOCHECKPOINT_PAGES = 100_000;

const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next round retries */ }
}, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * Checkpoints from `delayMs` on: a start of the server, which also starts the
 * writer's thread, is not slowed by a third thread starting at the same time,
 * and a short-lived process (a command) never starts it.
 */
export function startCheckpointer(file: string, intervalMs = 250, delayMs = 1000): Checkpointer {
  let worker: Worker | undefined;
  let exited = false;
  const timer = setTimeout(() => {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
    // Never the reason a process stays alive; errors (a vanished file) only end the checkpointing.
    worker.unref();
    worker.on('error', () => {});
    worker.once('exit', () => {
      exited = true;
    });
  }, delayMs);
  timer.unref();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      clearTimeout(timer);
      stopped ??= new Promise<void>((resolve) => {
        const running = worker;
        if (!running || exited) return resolve();
        // Held while it ends, so that a close waiting for it keeps the process alive meanwhile.
        running.ref();
        running.once('exit', () => resolve());
        running.postMessage('stop');
        setTimeout(() => void running.terminate(), 1000).unref();
      });
      return stopped;
    },
  };
}
