import type { LoadResult } from '../types.js';

/** Rounds of each measurement (`--rounds` of bench/run.ts, BENCH_ROUNDS; default 1). */
export function benchRounds(): number {
  const n = Number(process.env.BENCH_ROUNDS);
  return Number.isInteger(n) && n >= 1 ? n : 1;
}

const better = (a: LoadResult | undefined, b: LoadResult): LoadResult => (a === undefined || b.rps > a.rps ? b : a);

/**
 * Measures the subject and its baseline alternately, `rounds` times each, and
 * keeps the best round of each. Other work on the machine only ever slows a
 * run down, so the best of alternating rounds is the figure least skewed by it,
 * and both sides had the same chances.
 */
export async function measurePair(subject: () => Promise<LoadResult>, baseline: () => Promise<LoadResult>, rounds = benchRounds()): Promise<{ result: LoadResult; baseline: LoadResult }> {
  let bestSubject: LoadResult | undefined;
  let bestBaseline: LoadResult | undefined;
  for (let i = 0; i < rounds; i++) {
    bestSubject = better(bestSubject, await subject());
    bestBaseline = better(bestBaseline, await baseline());
  }
  return { result: bestSubject as LoadResult, baseline: bestBaseline as LoadResult };
}
