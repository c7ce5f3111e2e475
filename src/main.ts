import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

/**
 * Starts the server from the environment: the only place that listens on a port
 * and handles signals. A bad configuration stops the start with one clear line.
 */
export async function serve(env: Record<string, string | undefined> = process.env): Promise<void> {
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`opencity: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const started = performance.now();
  let opencity;
  try {
    opencity = await buildApp({ config });
  } catch (error) {
    process.stderr.write(`opencity: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const { app, generatedAdminSecret } = opencity;
  boundHeapGrowth(opencity.ctx.store.livesInProcess ? HEAP_GROWING_PERCENT.storeInProcess : HEAP_GROWING_PERCENT.storeElsewhere);
  if (generatedAdminSecret) {
    process.stdout.write(
      `\nBootstrap client created. Keep this secret now; it is not shown again.\n  client_id: opencity-admin\n  secret:    ${generatedAdminSecret}\n\n`,
    );
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    process.stderr.write(`opencity: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    await app.close();
    process.exit(1);
  }
  app.log.info({ url: config.publicUrl, store: opencity.ctx.store.name, startupMs: Math.round(performance.now() - started) }, 'OpenCity is serving');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/**
 * How far V8 lets its heap grow past what the last full collection kept, in
 * percent. Left to itself, V8 grows a heap of some 40 MB that lives to 120 MB
 * and more under load before collecting it (its factor goes up to 4). Beside
 * SQLite's page caches and its writer's thread, that took the server's peak
 * memory with a million assets over the 300 MB it is allowed (312 MiB); at
 * 30% the same benchmark peaked at 260–269 MiB. On PostgreSQL, 30% cost about
 * a fifth of geo searches and uncached pages, whose requests wait on the
 * database long enough for their objects to outlive young collections; 100%
 * kept its peak at 201 MiB (273–285 MiB unbounded) with throughput within the
 * machine's noise. The flag is read as the heap grows, so it holds for the
 * whole process, the writer's and checkpointer's threads included.
 */
const HEAP_GROWING_PERCENT = { storeInProcess: 30, storeElsewhere: 100 };

function boundHeapGrowth(percent: number): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

// Run as a file of its own (`node dist/src/main.js`), it serves; imported by the CLI, or bundled
// with it into dist/bin/opencity.js (whose own URL is then this module's), it waits to be called.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && /\/main\.[jt]s$/.test(import.meta.url)) {
  void serve();
}
