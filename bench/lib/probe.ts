import http from 'node:http';
import type { LoadResult } from '../types.js';

/** One-at-a-time measurements: latencies of calls made one after the other, bounded in count and time. */

/** Bounds of every one-at-a-time measurement. */
const PROBE_MAX_REQUESTS = 3000;
const PROBE_MAX_MS = 10_000;

export interface Latencies {
  result: LoadResult;
  /** Milliseconds, ascending. */
  sorted: number[];
}

export function summarize(samples: number[], errors = 0): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    sorted,
    result: { rps: mean > 0 ? Math.round(1000 / mean) : 0, p50Ms: round(at(0.5)), p90Ms: round(at(0.9)), p99Ms: round(at(0.99)), requests: sorted.length, errors },
  };
}

/** Times `run` one call at a time, bounded in count and time, after a short warm-up. */
export async function probe(run: (i: number) => Promise<boolean> | boolean, bounds: { warmup?: number; maxRequests?: number; maxMs?: number } = {}): Promise<Latencies> {
  for (let i = 0; i < (bounds.warmup ?? 100); i++) await run(i);
  const samples: number[] = [];
  let errors = 0;
  const started = performance.now();
  for (let i = 0; i < (bounds.maxRequests ?? PROBE_MAX_REQUESTS) && performance.now() - started < (bounds.maxMs ?? PROBE_MAX_MS); i++) {
    const t = performance.now();
    const ok = await run(i);
    samples.push(performance.now() - t);
    if (!ok) errors++;
  }
  return summarize(samples, errors);
}

/** One GET over a kept-alive loopback connection; true on a 200. */
export function getter(base: string): { get(path: string): Promise<boolean>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(base);
  return {
    get: (path) => new Promise<boolean>((resolve, reject) => {
      const req = http.get({ host: url.hostname, port: url.port, path, agent }, (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode === 200));
      });
      req.setTimeout(10_000, () => req.destroy(new Error(`timeout: ${path}`)));
      req.on('error', reject);
    }),
    close: () => agent.destroy(),
  };
}

