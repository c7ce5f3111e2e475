import type { LoadResult } from '../types.js';
import { startBareServer } from './baseline.js';
import { createBenchDatabase, type StoreKind } from './databases.js';
import { defaultRuntime, spawnServer } from './server.js';

/** Nearest-rank percentile of a small sample. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/**
 * Start-up times as a LoadResult: the latency columns hold the times (ms) of
 * `samples` starts, `rps` is starts per second at the median (so that the ratio
 * to a baseline reads as for throughput: higher is better).
 */
export function timingsAsResult(timesMs: number[]): LoadResult {
  const sorted = [...timesMs].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  const median = percentile(sorted, 50);
  return {
    rps: median > 0 ? Math.round((1000 / median) * 100) / 100 : 0,
    p50Ms: round(median),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    requests: sorted.length,
    errors: 0,
  };
}

/**
 * Server start-ups (spawn to the first 200 of /health, each on a fresh, empty
 * store: migrations, signing key, bootstrap clients) alternating with bare
 * node:http process starts, so that both meet the same machine.
 */
export async function measureStartups(kind: StoreKind, samples: number): Promise<{ server: number[]; bare: number[] }> {
  const server: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < samples; i++) {
    const db = await createBenchDatabase(kind);
    try {
      const spawned = await spawnServer(db.url, defaultRuntime());
      server.push(spawned.startupMs);
      await spawned.child.stop();
    } finally {
      await db.drop();
    }
    const started = performance.now();
    const bareServer = await startBareServer();
    bare.push(performance.now() - started);
    await bareServer.close();
  }
  return { server, bare };
}
