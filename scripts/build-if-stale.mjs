// Builds the project (npm run build) only when what it builds from changed since the last build,
// so that `npm start` after the first time starts at once. Run by `prestart` and `predemo`.
// Usage: node scripts/build-if-stale.mjs
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What the build writes; the oldest of them is compared with the newest input. */
export const OUTPUTS = ['dist/bin/opencity.js', 'dist/bin/sqlite-writer.js', 'dist/bin/notifier.js', 'web/dist/index.html'];
/** What the build reads: folders are walked, their own outputs and dependencies left out. */
export const INPUTS = ['src', 'web', 'scripts/bundle.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const SKIPPED = new Set(['dist', 'node_modules']);

function newestIn(file) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch {
    return { time: 0, file: undefined };
  }
  if (!stat.isDirectory()) return { time: stat.mtimeMs, file };
  let newest = { time: 0, file: undefined };
  for (const entry of fs.readdirSync(file)) {
    if (SKIPPED.has(entry)) continue;
    const found = newestIn(path.join(file, entry));
    if (found.time > newest.time) newest = found;
  }
  return newest;
}

/** Why the build must run in `root`, or undefined when its outputs are newer than every input. */
export function staleReason(root) {
  let oldestOutput = Infinity;
  for (const output of OUTPUTS) {
    try {
      oldestOutput = Math.min(oldestOutput, fs.statSync(path.join(root, output)).mtimeMs);
    } catch {
      return `${output} is missing`;
    }
  }
  for (const input of INPUTS) {
    const newest = newestIn(path.join(root, input));
    if (newest.time > oldestOutput) return `${path.relative(root, newest.file)} changed since the last build`;
  }
  return undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = path.join(import.meta.dirname, '..');
  const reason = staleReason(root);
  if (reason) {
    process.stderr.write(`opencity: building (${reason})\n`);
    const npm = process.env.npm_execpath;
    const result = npm
      ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
      : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    process.exit(result.status ?? 1);
  }
}
