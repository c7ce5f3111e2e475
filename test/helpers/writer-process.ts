// A second process writing to the same store: used to prove that concurrent
// writers from several processes lose nothing. Usage: writer-process.ts URL PREFIX COUNT
import { Store } from '../../src/storage/store.js';
import { createUser } from '../../src/storage/repositories/principals.js';

const [url, prefix, count] = process.argv.slice(2);
const store = Store.open(url as string);
const writes: Array<Promise<void>> = [];
for (let i = 0; i < Number(count); i++) {
  writes.push(createUser(store, { id: `${prefix}-${i}`, username: `${prefix}-${i}`, email: null, passwordHash: null }, Date.now()));
  if (i % 50 === 49) await Promise.all(writes.splice(0));
}
await Promise.all(writes);
await store.close();
process.stdout.write('done\n');
