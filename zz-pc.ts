import { Store } from './src/storage/store.js';
import { registerClient } from './src/identity/clients.js';
import { systemClock } from './src/domain/clock.js';
import { findClientWithAccount } from './src/storage/repositories/credentials.js';
import { CompiledQuery } from 'kysely';
const store = Store.open(process.argv[2] ?? 'sqlite:/tmp/zz-pc.db');
await store.migrate();
const id = `c${Date.now()}`;
await registerClient(store, systemClock, { clientId: id, roles: [{ role: 'a', experiment: null }, { role: 'b:c', experiment: null }] });
const compiled = store.read.selectFrom('clients as c').innerJoin('users as u', 'u.id', 'c.service_account_user_id').leftJoin('role_assignments as r', 'r.user_id', 'u.id')
  .select(['c.name as client_name', 'c.secret_digest', 'u.id', 'u.username', 'u.email', 'u.password_hash', 'u.service_account_of', 'r.role', 'r.experiment'])
  .where('c.id', '=', 'x').orderBy('r.role').orderBy('r.experiment').compile();
async function time(name: string, fn: () => Promise<unknown>, N = 20000) {
  for (let i = 0; i < 2000; i++) await fn();
  const c0 = process.cpuUsage(); 
  for (let i = 0; i < N; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(name, ((c.user + c.system) / N).toFixed(1), 'µs CPU');
}
for (let k = 0; k < 2; k++) {
await time('builder', () => findClientWithAccount(store, id));
await time('compiled', () => store.read.executeQuery(CompiledQuery.raw(compiled.sql, [id])));
await time('compiled2', () => store.read.executeQuery({ ...compiled, parameters: [id] }));
}
await store.close();
