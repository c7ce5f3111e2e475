import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBenchDatabase, type BenchDatabase, type StoreKind } from './databases.js';
import { datasetDatabase, type DatasetSize } from './datasets.js';
import type { DatasetInfo } from './generate.js';
import { freePort, spawnChild, waitUntilAnswering, type Child } from './processes.js';
import { clientToken, siteToken, userToken, type RoleSpec } from './tokens.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** What `npm start` runs: the bundled server and CLI (scripts/bundle.mjs). */
export const DIST_BIN = path.join(REPO_ROOT, 'dist', 'bin', 'opencity.js');
const SRC_MAIN = path.join(REPO_ROOT, 'src', 'main.ts');

/** The admin client's secret in every benchmark server (fixed, so nothing is printed at start). */
export const BENCH_ADMIN_SECRET = 'opencity-bench-admin-secret';

/**
 * How the server process runs: `dist` (the bundled JavaScript, what `npm start` runs;
 * bench/run.ts builds it first) or `tsx` (the TypeScript sources, slower to start).
 */
export type Runtime = 'dist' | 'tsx';

export interface ServerOptions {
  store: StoreKind;
  /** Use this database as it is (not dropped on close); otherwise a fresh one is made. */
  databaseUrl?: string;
  /** Start on a generated data set of this size (cached across runs). */
  dataset?: DatasetSize;
  runtime?: Runtime;
  /** Extra environment for the server (e.g. ONLINE_WINDOW, SITE_QUOTA). */
  env?: Record<string, string>;
}

export interface BenchServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Its DATABASE_URL (open a Store on it to look at or seed the data). */
  databaseUrl: string;
  store: StoreKind;
  /** What the generated data set holds (when started with `dataset`): sizes, time range, assets per site. */
  dataset: DatasetInfo | undefined;
  /** Milliseconds from spawning the process to the first 200 of /health. */
  startupMs: number;
  pid: number;
  /** An access token of client `clientId`, created with these roles on first use. */
  clientToken(clientId: string, roles?: RoleSpec[]): Promise<string>;
  /** Creates site `site` (and its client `ocsite-<site>`) if missing; returns the site client's token. */
  siteToken(site: string, centre?: { latitude: number; longitude: number; quota?: number | null }): Promise<string>;
  /** A person's token (created with these roles on first use), issued to the observatory's client. */
  userToken(username: string, roles?: RoleSpec[]): Promise<string>;
  /** Stops the server and drops the database it was given (unless `databaseUrl` was passed). */
  close(): Promise<void>;
}

/** Node options for the server process only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles` (NODE_OPTIONS refuses them). */
const serverNodeArgs = (): string[] => (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');

export function serverCommand(runtime: Runtime): string[] {
  if (runtime === 'tsx') return [...serverNodeArgs(), '--import', 'tsx', SRC_MAIN];
  if (!fs.existsSync(DIST_BIN)) throw new Error(`${path.relative(process.cwd(), DIST_BIN)} is missing: run \`npm run build\` (bench/run.ts does it unless --no-build)`);
  return [...serverNodeArgs(), DIST_BIN, 'serve'];
}

export function defaultRuntime(): Runtime {
  return process.env.BENCH_RUNTIME === 'tsx' ? 'tsx' : 'dist';
}

/** Spawns the server on `databaseUrl` and waits until /health answers. */
export async function spawnServer(databaseUrl: string, runtime: Runtime, env: Record<string, string> = {}): Promise<{ child: Child; url: string; startupMs: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawnChild(process.execPath, serverCommand(runtime), {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    OPENCITY_ADMIN_SECRET: BENCH_ADMIN_SECRET,
    ...env,
  }, REPO_ROOT);
  const startupMs = await waitUntilAnswering(`${url}/health`, child, { since: started });
  return { child, url, startupMs };
}

/**
 * The platform in its own process (so that the load generator does not share
 * its event loop or CPU), on a fresh database of `store`, optionally filled with
 * a generated data set.
 */
export async function startServer(options: ServerOptions): Promise<BenchServer> {
  let database: BenchDatabase | undefined;
  let dataset: DatasetInfo | undefined;
  let databaseUrl = options.databaseUrl;
  if (databaseUrl === undefined) {
    if (options.dataset) {
      const cloned = await datasetDatabase(options.store, options.dataset);
      database = cloned;
      dataset = cloned.dataset;
    } else {
      database = await createBenchDatabase(options.store);
    }
    databaseUrl = database.url;
  }
  let spawned;
  try {
    spawned = await spawnServer(databaseUrl, options.runtime ?? defaultRuntime(), options.env);
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const { child, url, startupMs } = spawned;
  const dbUrl = databaseUrl;
  return {
    url,
    databaseUrl: dbUrl,
    store: options.store,
    dataset,
    startupMs,
    pid: child.process.pid ?? -1,
    clientToken: (clientId, roles = []) => clientToken(url, dbUrl, clientId, roles),
    siteToken: (site, centre) => siteToken(url, dbUrl, site, centre),
    userToken: (username, roles = []) => userToken(url, dbUrl, username, roles),
    async close() {
      await child.stop();
      await database?.drop();
    },
  };
}
