import { CONNECTIONS, seed, SITE, updateRequests, writeHeaders } from './bench/lib/federation-load.js';
import { load } from './bench/lib/load.js';
import { startServer } from './bench/lib/server.js';
const store = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const server = await startServer({ store, env: { CHANGE_LOG: process.argv[3] ?? 'on' } });
try {
  const headers = writeHeaders(await server.siteToken(SITE, { latitude: 43.46232, longitude: -3.80998, quota: 1_000_000_000 }));
  await seed(server, headers);
  const r = await load({ url: server.url, method: 'POST', headers, requests: updateRequests, connections: CONNECTIONS, expectStatus: 204, durationSeconds: 8, warmupSeconds: 2 });
  console.log(store, process.argv[3], JSON.stringify(r));
} finally { await server.close(); }
