import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';

/** Children still running; killed if the benchmark process exits first (a crash, Ctrl-C). */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of live) child.kill('SIGKILL');
    process.exit(130);
  });
}

export interface Child {
  process: ChildProcess;
  /** The last few kilobytes of its stdout and stderr, for error messages. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export function spawnChild(command: string, args: string[], env: Record<string, string | undefined>, cwd?: string): Child {
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return {
    process: child,
    output: () => tail,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A port nothing listens on right now (the kernel picks it; we release it at once). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function probe(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * Polls `url` every `intervalMs` until it answers 200; rejects when the child
 * exits first or `timeoutMs` passes. Returns the time it took, in ms.
 */
export async function waitUntilAnswering(url: string, child: Child, { timeoutMs = 60_000, intervalMs = 2, since = performance.now() } = {}): Promise<number> {
  let exited: number | string | undefined;
  void child.exited.then((code) => {
    exited = code;
  });
  for (;;) {
    if ((await probe(url)) === 200) return performance.now() - since;
    if (exited !== undefined) throw new Error(`the process exited (${exited}) before ${url} answered:\n${child.output()}`);
    if (performance.now() - since > timeoutMs) {
      await child.stop(1000);
      throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${child.output()}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
