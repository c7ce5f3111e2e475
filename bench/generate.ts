/**
 * Pre-generates benchmark data sets (cached by size; `npm run bench` reuses them):
 *
 *   node --import tsx bench/generate.ts --assets 1000000 --readings 10000000 [--store sqlite|postgres|both] [--force]
 *   node --import tsx bench/generate.ts --list
 *   node --import tsx bench/generate.ts --clean
 */
import { Command } from 'commander';
import type { StoreKind } from './lib/databases.js';
import { ensureDataset, listDatasets, removeDatasets } from './lib/datasets.js';

const count = (name: string, max: number) => (value: string) => {
  const n = Number(value.replace(/_/g, ''));
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max.toLocaleString('en-US')}`);
  return n;
};

const program = new Command('bench/generate.ts')
  .description('generate (or list, or remove) cached benchmark data sets')
  .option('--assets <n>', 'number of assets (up to 1,000,000)', count('assets', 1_000_000))
  .option('--readings <n>', 'number of readings (up to 10,000,000)', count('readings', 10_000_000))
  .option('--store <store>', 'sqlite, postgres or both', 'sqlite')
  .option('--force', 'generate again even if a fresh one is cached')
  .option('--list', 'list the cached data sets')
  .option('--clean', 'remove every cached data set')
  .action(async (o: { assets?: number; readings?: number; store: string; force?: boolean; list?: boolean; clean?: boolean }) => {
    if (o.list) {
      for (const d of await listDatasets()) {
        const info = d.info ? `${d.info.assets} assets, ${d.info.readings} readings, generated ${new Date(d.info.generatedAt).toISOString()}` : 'incomplete';
        process.stdout.write(`${d.kind.padEnd(8)} ${d.name}  ${info}\n`);
      }
      return;
    }
    if (o.clean) {
      process.stdout.write(`removed ${await removeDatasets()} data set(s)\n`);
      return;
    }
    if (o.assets === undefined || o.readings === undefined) throw new Error('--assets and --readings are required');
    const stores: StoreKind[] | undefined = o.store === 'both' ? ['sqlite', 'postgres'] : o.store === 'sqlite' || o.store === 'postgres' ? [o.store] : undefined;
    if (!stores) throw new Error('--store must be sqlite, postgres or both');
    for (const kind of stores) {
      const info = await ensureDataset(kind, { assets: o.assets, readings: o.readings }, { force: o.force });
      process.stdout.write(`${kind}: ${info.assets.toLocaleString('en-US')} assets, ${info.readings.toLocaleString('en-US')} readings, ${new Date(info.start).toISOString()} to ${new Date(info.end).toISOString()}\n`);
    }
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`bench/generate.ts: ${(error as Error).message}\n`);
  process.exit(1);
});
