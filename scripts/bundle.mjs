// Bundles the server and its CLI into one file, dist/bin/opencity.js (and the
// SQLite writer thread's module into dist/bin/sqlite-writer.js, the notifier's into dist/bin/notifier.js), which
// `npm start`, `npm run demo` and the `opencity` command run. Node 20 resolves and
// compiles each of the ~1,500 files of the server's dependency tree one by one
// (kysely and TypeBox alone are several hundred); one file starts in a fraction
// of that time.
// Usage: node scripts/bundle.mjs [outdir]  (default dist/bin; another folder two levels under the
// package root serves alike, e.g. the bundle test's own, so that it never rewrites dist/bin under a run)
import { build } from 'esbuild';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

const root = join(import.meta.dirname, '..');
const outdir = process.argv[2] ? resolve(process.argv[2]) : join(root, 'dist', 'bin');

await build({
  entryPoints: {
    opencity: join(root, 'src', 'cli', 'main.ts'),
    // The SQLite writer thread's module, which the server starts as the thread's entry from beside it (src/storage/sqlite/writer-thread.ts).
    'sqlite-writer': join(root, 'src', 'storage', 'sqlite', 'writer-thread.ts'),
    // The notifier's thread, started the same way (src/services/notifier-thread.ts).
    notifier: join(root, 'src', 'services', 'notifier-thread.ts'),
  },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  // Every string, identifier and pattern in ASCII (see the end of this file).
  charset: 'ascii',
  logLevel: 'warning',
  // Left to Node: native addons, packages that find files or workers of their own next to their code,
  // and undici, which the notifier loads only when a subscription first notifies (its source would
  // otherwise sit in every server's memory as part of this file's).
  external: ['better-sqlite3', 'pg-native', 'pino', '@fastify/static', '@fastify/swagger-ui', 'undici'],
  // The CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as openCityRequire } from 'node:module'; const require = openCityRequire(import.meta.url);" },
});

// V8 keeps a script's source for as long as it runs, at one byte a character when every character
// fits in one, else at two. esbuild writes strings, identifiers and patterns in ASCII; what it leaves
// outside ASCII is in comments of dependencies, which are written here as \u escapes (still comments)
// so that the server's source takes half the memory.
for (const file of ['opencity.js', 'sqlite-writer.js', 'notifier.js']) {
  const out = join(outdir, file);
  const text = await readFile(out, 'utf8');
  const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) await writeFile(out, ascii);
}
