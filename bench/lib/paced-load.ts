import { Pool } from 'undici';
import type { LoadResult } from '../types.js';
import type { RequestSpec } from './load.js';

/**
 * A load at a steady rate: request i is due at start + i / rate, and is sent
 * then, whatever became of the ones before (an open loop, as sensors send).
 * autocannon's `overallRate` counts requests per second and lets each
 * connection send its share as fast as it is answered at the start of every
 * second: 1,000 updates/s arrive as a burst of 1,000 in the first few hundred
 * milliseconds, then nothing, which measures the burst, not the rate. A
 * response's latency runs from the time its request was due, so a server that
 * falls behind shows it (no coordinated omission).
 */

export interface PacedLoadOptions {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The request of each running number (the number keeps running from one call to the next). */
  next: () => RequestSpec;
  /** Requests per second. */
  rate: number;
  /** Connections the requests share; a request due while all are busy waits for one. */
  connections: number;
  durationSeconds: number;
  expectStatus: ReadonlySet<number>;
}

/** How often the sender looks for requests that are due. */
const TICK_MS = 1;
/** How long the answers still awaited may take once the last request was sent. */
const DRAIN_MS = 15_000;

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

export async function pacedLoad(options: PacedLoadOptions): Promise<LoadResult> {
  const origin = new URL(options.url);
  const pool = new Pool(origin.origin, { connections: options.connections, pipelining: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const total = Math.max(1, Math.round(options.rate * options.durationSeconds));
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  const inFlight = new Set<Promise<void>>();
  const send = (due: number) => {
    const spec = options.next();
    const sending = pool.request({
      path: spec.path ?? `${origin.pathname}${origin.search}`,
      method: (spec.method ?? options.method) as 'GET',
      headers: { ...options.headers, ...spec.headers },
      body: spec.body ?? options.body,
    }).then(async (answer) => {
      await answer.body.dump();
      latencies.push(performance.now() - due);
      if (!options.expectStatus.has(answer.statusCode)) errors++;
    }, () => {
      errors++;
    }).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  };
  const started = performance.now();
  const interval = 1000 / options.rate;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * interval <= now) send(started + sent++ * interval);
      if (sent < total) setTimeout(tick, TICK_MS);
      else resolve();
    };
    tick();
  });
  const elapsedS = (performance.now() - started) / 1000;
  let guard: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(inFlight),
    new Promise<void>((resolve) => {
      guard = setTimeout(resolve, DRAIN_MS);
    }),
  ]);
  clearTimeout(guard);
  errors += inFlight.size;
  await pool.destroy();
  latencies.sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    rps: Math.round(latencies.length / Math.max(elapsedS, options.durationSeconds)),
    p50Ms: round(quantile(latencies, 0.5)),
    p90Ms: round(quantile(latencies, 0.9)),
    p99Ms: round(quantile(latencies, 0.99)),
    requests: latencies.length,
    errors,
  };
}
