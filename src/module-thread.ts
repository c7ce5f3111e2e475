import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData, type MessagePort } from 'node:worker_threads';

/**
 * A worker thread whose entry is one of our own modules: the SQLite writer
 * (./storage/sqlite/writer-thread.ts) and the notifier
 * (./services/notifier-thread.ts). Each such module is both ends: the main
 * thread starts it with `startModuleThread`, and the thread, running the same
 * module, finds its role with `threadPort`.
 */

/**
 * Starts the thread's module. Run from the TypeScript sources (tests, `tsx`),
 * the module is compiled on the fly, which Node 20's module hooks do not do
 * inside a worker: tsx's require hook does.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
if (workerData.tsx) {
  require(workerData.tsx).register();
  require(workerData.entry);
} else {
  import(workerData.entry).catch((error) => setImmediate(() => { throw error; }));
}
`;

/**
 * Starts `moduleUrl` (the caller's `import.meta.url`) as a thread of `role`.
 * From the bundled server, the module is the file `bundled` beside it
 * (scripts/bundle.mjs builds each such module alone).
 */
export function startModuleThread(moduleUrl: string, bundled: string, role: string, data: Record<string, unknown>): Worker {
  const entry = moduleUrl.endsWith('.ts')
    ? { entry: fileURLToPath(moduleUrl), tsx: createRequire(moduleUrl).resolve('tsx/cjs/api') }
    : { entry: new URL(`./${bundled}`, moduleUrl).href };
  return new Worker(BOOTSTRAP, { eval: true, workerData: { ...data, ...entry, role } });
}

/** In a thread started as `role`, its port to the main thread and its data; elsewhere undefined. */
export function threadPort<T>(role: string): { port: MessagePort; data: T } | undefined {
  if (isMainThread || !parentPort || (workerData as { role?: unknown } | null)?.role !== role) return undefined;
  return { port: parentPort, data: workerData as T };
}
