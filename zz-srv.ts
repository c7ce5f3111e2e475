import { buildApp } from './src/app.js';
import { testConfig } from './src/config.js';
import { registerClient } from './src/identity/clients.js';
import fs from 'node:fs';
const { app, ctx } = await buildApp({ config: testConfig({ databaseUrl: process.argv[2] ?? 'sqlite:/tmp/zz-id.db', tokenRateLimit: Number(process.env.RL ?? 0) }) });
const c = await registerClient(ctx.store, ctx.clock, { clientId: `x${Date.now()}`, roles: [{ role: 'a', experiment: null }] });
fs.writeFileSync('/tmp/zz-secret', `${c.client_id}:${c.secret}`);
await app.listen({ port: 18099, host: '127.0.0.1' });
