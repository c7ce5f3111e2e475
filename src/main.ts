import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { adminSecretShown } from './identity/bootstrap.js';
import { ADMIN_SECRET_RECOVERY, servedUrl, welcomeText } from './welcome.js';

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
  // A person at a terminal reads lines; a pipe or a file is read by machines.
  if (config.logFormat === 'auto') config = { ...config, logFormat: process.stdout.isTTY ? ('pretty' as const) : ('json' as const) };
  const pretty = config.logFormat === 'pretty';
  const started = performance.now();
  let opencity;
  try {
    opencity = await buildApp({ config });
  } catch (error) {
    process.stderr.write(`opencity: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const { app, generatedAdminSecret, adminSecretNeverShown } = opencity;
  // A store that fails here only makes the next start say the secret was never shown.
  const recordShown = () => adminSecretShown(opencity.ctx.store).catch((error: unknown) => app.log.warn({ err: error }, 'could not record that the admin secret was shown'));
  boundHeapGrowth(opencity.ctx.store.livesInProcess ? HEAP_GROWING_PERCENT.storeInProcess : HEAP_GROWING_PERCENT.storeElsewhere);
  if (generatedAdminSecret && !pretty) {
    await printed(`\nBootstrap client created. Keep this secret now; it is not shown again.\n  client_id: opencity-admin\n  secret:    ${generatedAdminSecret}\n\n`);
    await recordShown();
  }
  if (adminSecretNeverShown && !pretty) process.stdout.write(`\n${ADMIN_SECRET_RECOVERY.join('\n')}\n\n`);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    process.stderr.write(`opencity: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}\n`);
    await app.close();
    process.exit(1);
  }
  if (pretty) {
    const address = app.server.address();
    const publicUrl = servedUrl(config.publicUrl, typeof address === 'object' && address ? address.port : undefined);
    await printed(`${welcomeText({ publicUrl, generatedAdminSecret, adminSecretNeverShown })}\n`);
    if (generatedAdminSecret) await recordShown();
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

/** Writes to standard output; resolves once the text has been handed to the system (a pipe may take it later than the call). */
function printed(text: string): Promise<void> {
  return new Promise((resolve) => process.stdout.write(text, () => resolve()));
}

/**
 * How far V8 lets its heap grow past what the last full collection kept, in
 * percent. Left to itself, V8 lets a heap grow to several times what lives in
 * it under load before collecting it. Beside SQLite's page caches and its
 * writer's thread, that took the server's peak memory with a million assets
 * over the limit it is allowed; a tight bound keeps it under. On PostgreSQL a
 * tight bound costs throughput instead (requests wait on the database long
 * enough for their objects to outlive young collections), and a loose one
 * keeps the peak under the limit as well. The figures are in bench/RESULTS.md
 * (discovery). The flag is read as the heap grows, so it holds for the whole
 * process, the writer's and checkpointer's threads included.
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
