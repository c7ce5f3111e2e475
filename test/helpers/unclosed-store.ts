// A process that writes to a store and never closes it: it must still end by
// itself once its work is done (the SQLite writer's thread does not hold the
// process), and not before its writes are answered. Usage: unclosed-store.ts URL
import { Store } from '../../src/storage/store.js';

const store = Store.open(process.argv[2] as string);
await store.migrate();
await store.writes.write({ kind: 'delete', input: { id: 'urn:oc:entity:santander:none', expectedType: undefined, now: Date.now() } });
await store.writes.run((trx) => trx.insertInto('asset_types').values({ id: 'urn:oc:entityType:unclosed', description: '' }).execute());
process.stdout.write('written\n');
