// Bundles the server and its CLI into one file, dist/bin/opencity.js (and the
// SQLite writer thread's module into dist/bin/sqlite-writer.js), which
// `npm start`, `npm run demo` and the `opencity` command run. Node 20 resolves and
// compiles each of the ~1,500 files of the server's dependency tree one by one
// (kysely and TypeBox alone are several hundred); one file starts in a fraction
// of that time.
// Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

await build({
  entryPoints: {
    opencity: join(root, 'src', 'cli', 'main.ts'),
    // The SQLite writer thread's module, which the server starts as the thread's entry from beside it (src/storage/sqlite/writer-thread.ts).
    'sqlite-writer': join(root, 'src', 'storage', 'sqlite', 'writer-thread.ts'),
  },
  outdir: join(root, 'dist', 'bin'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Left to Node: native addons, and packages that find files or workers of their own next to their code.
  external: ['better-sqlite3', 'pg-native', 'pino', '@fastify/static', '@fastify/swagger-ui'],
  // The CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as openCityRequire } from 'node:module'; const require = openCityRequire(import.meta.url);" },
});
