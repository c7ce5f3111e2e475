import autocannon from 'autocannon';
import type { LoadResult } from '../types.js';
import { pacedLoad } from './paced-load.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** One request's variable parts; anything left out comes from the load's defaults. */
export interface RequestSpec {
  method?: HttpMethod;
  /** Path and query, e.g. `/federation/v2/entities/urn:…/attrs`. */
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  /** Target URL; its path and query are the default request path. */
  url: string;
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string;
  /**
   * Varying requests: an array cycled through by every connection, or a
   * function called with a running counter (shared by all connections) for each
   * request sent, e.g. to update a different asset each time.
   */
  requests?: RequestSpec[] | ((i: number) => RequestSpec);
  /** Concurrent keep-alive connections (default 32). */
  connections?: number;
  /** Measured seconds (default BENCH_DURATION, else 10). */
  durationSeconds?: number;
  /** Unmeasured seconds before, so that the JIT and caches are warm (default BENCH_WARMUP, else 2; 0 skips). */
  warmupSeconds?: number;
  /** The status every response should carry (default 200); others count as errors. */
  expectStatus?: number | number[];
  /**
   * Requests per second, evenly spaced and sent whether or not the ones before
   * were answered (./paced-load.ts); default: as fast as the server answers.
   */
  overallRate?: number;
}

const envSeconds = (name: string, fallback: number): number => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n >= 0 && process.env[name] !== '' && process.env[name] !== undefined ? n : fallback;
};

/** Seconds each measured load lasts in this run (`--duration` of bench/run.ts, BENCH_DURATION). */
export const benchDuration = (): number => envSeconds('BENCH_DURATION', 10);
export const benchWarmup = (): number => envSeconds('BENCH_WARMUP', 2);

function toAutocannonRequests(requests: LoadOptions['requests']): autocannon.Request[] | undefined {
  if (requests === undefined) return undefined;
  if (Array.isArray(requests)) return requests.map((r) => ({ ...r }));
  let counter = 0;
  const make = requests;
  return [{
    setupRequest: (request) => {
      const spec = make(counter++);
      return { ...request, ...spec, headers: { ...request.headers, ...spec.headers } } as autocannon.Request;
    },
  }];
}

function run(options: LoadOptions, requests: autocannon.Request[] | undefined, durationSeconds: number): Promise<autocannon.Result> {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: options.url,
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      body: options.body,
      requests,
      connections: options.connections ?? 32,
      duration: durationSeconds,
      timeout: 10,
    }, (error, result) => {
      clearTimeout(guard);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    });
    // A hard bound, whatever the server does: the load never outlives its time by much.
    const guard = setTimeout(() => instance.stop(), (durationSeconds + 15) * 1000);
  });
}

/** Turns autocannon's result into ours; responses with an unexpected status count as errors. */
export function toLoadResult(result: autocannon.Result, expectStatus: number | number[] = 200): LoadResult {
  const expected = new Set(Array.isArray(expectStatus) ? expectStatus : [expectStatus]);
  let responses = 0;
  let good = 0;
  for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
    const count = (stats as { count?: number }).count ?? 0;
    responses += count;
    if (expected.has(Number(status))) good += count;
  }
  const round = (n: number) => Math.round(n * 100) / 100;
  return {
    rps: result.duration > 0 ? Math.round(responses / result.duration) : 0,
    p50Ms: round(result.latency.p50),
    p90Ms: round(result.latency.p90),
    p99Ms: round(result.latency.p99),
    requests: responses,
    errors: responses - good + result.errors + result.mismatches,
  };
}

/** The requests of a paced load, one after the other, from one running counter. */
function requestSource(requests: LoadOptions['requests']): () => RequestSpec {
  let counter = 0;
  if (requests === undefined) return () => ({});
  if (Array.isArray(requests)) return () => requests[counter++ % requests.length] ?? {};
  return () => requests(counter++);
}

/** Drives a server for a bounded time, after a short warm-up: with autocannon, or paced at `overallRate`. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const warmup = options.warmupSeconds ?? benchWarmup();
  const duration = options.durationSeconds ?? benchDuration();
  if (options.overallRate !== undefined) {
    const paced = {
      url: options.url, method: options.method ?? 'GET', headers: options.headers ?? {}, body: options.body, next: requestSource(options.requests),
      rate: options.overallRate, connections: options.connections ?? 32,
      expectStatus: new Set(Array.isArray(options.expectStatus) ? options.expectStatus : [options.expectStatus ?? 200]),
    };
    if (warmup > 0) await pacedLoad({ ...paced, durationSeconds: warmup });
    return pacedLoad({ ...paced, durationSeconds: duration });
  }
  // One request source for warm-up and measurement: a counter keeps running, so ids made during the warm-up are not made again.
  const requests = toAutocannonRequests(options.requests);
  if (warmup > 0) await run(options, requests, warmup);
  const result = await run(options, requests, duration);
  return toLoadResult(result, options.expectStatus ?? 200);
}
