// A start's migrations in a process of its own, to be killed while they run.
// Usage: migrating-process.ts URL. It opens the store, says "ready", waits for a
// line on stdin, migrates, says "migrated <ms>" and exits.
import { Store } from '../../src/storage/store.js';

const store = Store.open(process.argv[2] as string);
process.stdout.write('ready\n');
process.stdin.once('data', () => {
  const started = performance.now();
  void store.migrate().then(async () => {
    process.stdout.write(`migrated ${Math.round(performance.now() - started)}\n`);
    await store.close();
    process.exit(0);
  });
});
