/**
 * The shape every benchmark scenario follows. `npm run bench [scenario…]` runs
 * them (bench/run.ts); each returns rows printed beside the baseline measured
 * in the same run and recorded in bench/RESULTS.md.
 */
export interface LoadResult {
  /** Requests per second (mean over the run). */
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses whose status was not the expected one, plus socket errors. */
  errors: number;
}

export interface ResultRow {
  /** What was measured, e.g. "federation update (SQLite, 64 conns)". */
  name: string;
  result: LoadResult;
  /** The baseline of the same run it is compared with (bare Node http, raw SQL…). */
  baselineName: string;
  baseline: LoadResult;
  /** The goal as text, e.g. ">= 10,000/s, p99 < 25 ms, ratio >= 0.8". */
  goal: string;
  /** Whether the goal was met. */
  met: boolean;
}

export interface Scenario {
  name: string;
  description: string;
  run(): Promise<ResultRow[]>;
}
