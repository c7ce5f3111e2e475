import { startBareServer } from '../lib/baseline.js';
import { measurePair } from '../lib/compare.js';
import { load } from '../lib/load.js';
import { startServer } from '../lib/server.js';
import { measureStartups, timingsAsResult } from '../lib/startup.js';
import type { ResultRow, Scenario } from '../types.js';

const STARTS = 5;
const CONNECTIONS = 32;

/** Issue 2: start-up on an empty SQLite store under 1 s; /health at least 70 % of bare Node http. */
const core: Scenario = {
  name: 'core',
  description: 'Start-up on an empty SQLite store, and GET /health against a bare node:http server answering the same 200.',
  async run(): Promise<ResultRow[]> {
    const starts = await measureStartups('sqlite', STARTS);
    const startup = timingsAsResult(starts.server);

    const server = await startServer({ store: 'sqlite' });
    const bare = await startBareServer({ status: 200, body: '{"status":"ok"}', contentType: 'application/json' });
    let health;
    try {
      health = await measurePair(
        () => load({ url: `${server.url}/health`, connections: CONNECTIONS }),
        () => load({ url: `${bare.url}/health`, connections: CONNECTIONS }),
      );
    } finally {
      await server.close();
      await bare.close();
    }

    return [
      {
        name: `start-up to first /health, empty SQLite (${STARTS} starts)`,
        result: startup,
        baselineName: 'bare node:http process start',
        baseline: timingsAsResult(starts.bare),
        goal: 'every start < 1,000 ms',
        met: startup.p99Ms < 1000,
      },
      {
        name: `GET /health (${CONNECTIONS} conns)`,
        result: health.result,
        baselineName: 'bare node:http, same 200',
        baseline: health.baseline,
        goal: 'ratio >= 0.7, no errors',
        met: health.result.rps >= 0.7 * health.baseline.rps && health.result.errors === 0,
      },
    ];
  },
};

export default core;
