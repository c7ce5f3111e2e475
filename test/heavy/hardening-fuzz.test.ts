import { fuzzEveryRoute, requestsPerStore } from '../helpers/hardening-fuzz-suite.js';

/**
 * The fuzzer of test/interface/hardening-fuzz.test.ts at full size: 2,000
 * malformed requests per interface on each store (not shared between them),
 * 10,400 per store (at least 10,000 asserted, unless FUZZ_RUNS asks for fewer); never a 5xx, always a JSON error,
 * the stored data byte-identical afterwards. Prints `# fuzz [store] … requests=… 5xx=…`.
 * FUZZ_RUNS sets the requests per interface and store, FUZZ_SEED replays a run.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

fuzzEveryRoute('fuzzing every route with at least 10,000 malformed requests per store', {
  runs: RUNS, seed: SEED, atLeastPerStore: Math.min(10_000, requestsPerStore(RUNS)),
});
