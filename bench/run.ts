/**
 * `npm run bench [scenario…] [--duration S] [--warmup S] [--rounds N] [--no-build] [--no-record] [--strict] [--list]`
 *
 * Runs the named scenarios of bench/scenarios/ (default: all), prints each row
 * beside the baseline measured in the same run, and rewrites their sections of
 * bench/RESULTS.md with the date and the machine.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describeMachine, machineLine } from './lib/machine.js';
import { textTable, updateResultsFile, type ScenarioOutcome } from './lib/report.js';
import { REPO_ROOT } from './lib/server.js';
import type { Scenario } from './types.js';

const SCENARIO_DIR = path.join(REPO_ROOT, 'bench', 'scenarios');
const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
const BUILD_STAMP = path.join(REPO_ROOT, 'dist', '.bench-build');

interface Args {
  names: string[];
  build: boolean;
  record: boolean;
  strict: boolean;
  list: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { names: [], build: true, record: true, strict: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) throw new Error(`${a} needs a number of seconds`);
      return v;
    };
    if (a === '--duration') process.env.BENCH_DURATION = value();
    else if (a === '--warmup') process.env.BENCH_WARMUP = value();
    else if (a === '--rounds') process.env.BENCH_ROUNDS = value();
    else if (a === '--no-build') args.build = false;
    else if (a === '--no-record') args.record = false;
    else if (a === '--strict') args.strict = true;
    else if (a === '--list') args.list = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else args.names.push(a);
  }
  return args;
}

/** Scenario files, `core` first: each default-exports a Scenario (or an array of them). */
async function loadScenarios(): Promise<Scenario[]> {
  const files = fs.readdirSync(SCENARIO_DIR).filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')).sort((a, b) => (a === 'core.ts' ? -1 : b === 'core.ts' ? 1 : a.localeCompare(b)));
  const scenarios: Scenario[] = [];
  for (const file of files) {
    const mod = (await import(path.join(SCENARIO_DIR, file))) as { default?: Scenario | Scenario[] };
    if (!mod.default) throw new Error(`bench/scenarios/${file} has no default export (a Scenario)`);
    scenarios.push(...(Array.isArray(mod.default) ? mod.default : [mod.default]));
  }
  return scenarios;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** The server runs from dist/ (what production runs): compile when src/ changed since the last build. */
function buildIfStale(): void {
  const stamp = fs.existsSync(BUILD_STAMP) ? fs.statSync(BUILD_STAMP).mtimeMs : 0;
  if (stamp > newestMtime(path.join(REPO_ROOT, 'src'))) return;
  process.stderr.write('bench: compiling the server (tsc -p tsconfig.build.json, scripts/bundle.mjs)…\n');
  const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'src', 'main.js'))) throw new Error(`the build produced no dist/src/main.js:\n${result.stdout}${result.stderr}`);
  const bundle = spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts', 'bundle.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (bundle.status !== 0) throw new Error(`scripts/bundle.mjs failed:\n${bundle.stdout}${bundle.stderr}`);
  if (result.status !== 0) {
    // tsc still emits on type errors; measure what was emitted but say so.
    process.stderr.write(`bench: warning: the build reported type errors (measuring the emitted code anyway):\n${result.stdout.split('\n').slice(0, 10).join('\n')}\n`);
    return;
  }
  fs.writeFileSync(BUILD_STAMP, new Date().toISOString());
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const all = await loadScenarios();
  if (args.list) {
    for (const s of all) process.stdout.write(`${s.name.padEnd(16)} ${s.description}\n`);
    return 0;
  }
  const unknown = args.names.filter((n) => !all.some((s) => s.name === n));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')} (known: ${all.map((s) => s.name).join(', ')})`);
  const chosen = args.names.length > 0 ? all.filter((s) => args.names.includes(s.name)) : all;
  if (args.build && process.env.BENCH_RUNTIME !== 'tsx') buildIfStale();

  const machine = await describeMachine();
  const when = new Date();
  process.stdout.write(`bench: ${machineLine(machine)}\n`);
  const outcomes: ScenarioOutcome[] = [];
  for (const scenario of chosen) {
    process.stdout.write(`\n== ${scenario.name}: ${scenario.description}\n`);
    const started = performance.now();
    try {
      const rows = await scenario.run();
      outcomes.push({ name: scenario.name, description: scenario.description, rows });
      process.stdout.write(`${textTable(rows)}\n(${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
    } catch (error) {
      const message = (error as Error).stack ?? String(error);
      outcomes.push({ name: scenario.name, description: scenario.description, rows: [], error: (error as Error).message });
      process.stdout.write(`FAILED: ${message}\n`);
    }
  }
  if (args.record) {
    updateResultsFile(RESULTS_FILE, outcomes, when, machine);
    process.stdout.write(`\nbench: recorded in ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  }
  const failed = outcomes.filter((o) => o.error !== undefined).length;
  const unmet = outcomes.flatMap((o) => o.rows).filter((r) => !r.met).length;
  if (failed > 0 || unmet > 0) process.stdout.write(`bench: ${failed} scenario(s) failed, ${unmet} goal(s) not met\n`);
  return failed > 0 || (args.strict && unmet > 0) ? 1 : 0;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`bench: ${(error as Error).message}\n`);
  process.exit(2);
});
