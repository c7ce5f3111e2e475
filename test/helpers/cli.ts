import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../../scripts/build-if-stale.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The built `opencity` command (scripts/bundle.mjs), as users run it. */
export const BUNDLE = path.join(ROOT, 'dist', 'bin', 'opencity.js');

let bundleCurrent: boolean | undefined;

/**
 * Node's arguments that run `opencity`: the built command when it was built
 * from the sources as they are now (the test command builds it first when
 * they changed), else the sources through tsx, which take seconds more to
 * start each time.
 */
export function opencityCommand(): string[] {
  bundleCurrent ??= staleReason(ROOT) === undefined;
  return bundleCurrent ? [BUNDLE] : ['--import', 'tsx', path.join(ROOT, 'src/cli/main.ts')];
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the package (e.g. test/helpers/writer-process.ts) in a child process. */
export function runTs(entry: string, args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000): Promise<RunResult> {
  return runNode(['--import', 'tsx', path.join(ROOT, entry), ...args], env, timeoutMs);
}

/** Runs `opencity …` in a child process (opencityCommand). */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000): Promise<RunResult> {
  return runNode([...opencityCommand(), ...args], env, timeoutMs);
}

function runNode(args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `opencity …` against the given DATABASE_URL. */
export const opencity = (databaseUrl: string, ...args: string[]): Promise<RunResult> => runCli(args, { DATABASE_URL: databaseUrl });
