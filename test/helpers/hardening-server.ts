import { spawn, type ChildProcess } from 'node:child_process';
import { opencityCommand, ROOT } from './cli.js';

/** A real server process (by default `opencity serve`) on a loopback port of its own choosing. */
export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string>;
  /** Sends a signal to this process only (by its pid) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

const LISTENING = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * Starts the server with this environment (PORT 0 and loopback unless given) and waits until it listens
 * (LOG_LEVEL must be info or finer: its "listening" line gives the port). `args` are Node's arguments:
 * `opencity serve` unless told otherwise (the built command when it is current, ./cli.ts).
 */
export async function startServer(env: Record<string, string>, startTimeoutMs = 60_000, args: string[] = [...opencityCommand(), 'serve']): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${startTimeoutMs} ms:\n${out.slice(-2000)}`));
    }, startTimeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = LISTENING.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out.slice(-2000)}`));
    });
  });
  return {
    child, pid: child.pid!, port, url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, signal);
      return exited;
    },
  };
}
