import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints off the write path. By default SQLite checkpoints inside the
 * commit that crosses 1,000 WAL pages: the writer stops to copy pages back
 * into the database, and with writes spread over many assets (each touching
 * its own pages) that copying costs the write path a third of its throughput
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

export function startCheckpointer(file: string, intervalMs = 250): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs } });
  // Never the reason a process stays alive; errors (a vanished file) only end the checkpointing.
  worker.unref();
  worker.on('error', () => {});
  let exited = false;
  worker.once('exit', () => {
    exited = true;
  });
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        if (exited) return resolve();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
        setTimeout(() => void worker.terminate(), 1000).unref();
      });
      return stopped;
    },
  };
}
