import { load } from './lib/load.js';
import { startServer } from './lib/server.js';

const store = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgres';
const what = process.argv[3] ?? 'distinct';
const server = await startServer({ store, dataset: { assets: 1_000_000, readings: 10_000_000 } });
try {
  const B = '/discovery/v0';
  const paths: Record<string, (i: number) => string> = {
    distinct: (i) => `${B}/assets?per=30&nocache=${i}`,
    hot: () => `${B}/assets?per=30`,
  };
  const r = await load({ url: `${server.url}${B}/assets`, requests: (i) => ({ path: paths[what]!(i) }), connections: 32, durationSeconds: Number(process.env.D ?? 8) });
  console.log(what, store, JSON.stringify(r));
} finally {
  await server.close();
}
