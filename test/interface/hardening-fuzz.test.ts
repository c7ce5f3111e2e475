import { STORES } from '../helpers/stores.js';
import { fuzzEveryRoute } from '../helpers/hardening-fuzz-suite.js';

/**
 * Bad input on every route of every interface (test/helpers/hardening-fuzz-suite.ts):
 * never a 5xx, always a JSON error, the stored data unchanged. The quick run of
 * `npm test`; test/heavy/hardening-fuzz.test.ts sends at least 10,000 per store.
 */

// At least 2,000 requests per interface in all, shared between the stores this run covers.
const RUNS = Number(process.env.FUZZ_RUNS ?? Math.ceil(2000 / STORES.length));
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

fuzzEveryRoute('fuzzing every route with malformed requests', { runs: RUNS, seed: SEED });
