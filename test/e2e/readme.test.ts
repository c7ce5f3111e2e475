import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { startServer, type ServerProcess } from '../helpers/hardening-server.js';

/**
 * The README's "What you do next" steps, run as written in one shell, so that the README cannot
 * drift from what the platform does. Two things differ from a person's terminal: the server is
 * this test's own (its sources, a fresh SQLite file, a free loopback port instead of 8080), and
 * `npx opencity` runs the command from its sources, so that no build is needed. `npm run demo`
 * (step 5) loads a week of data into thousands of assets; the demo loader has tests of its own.
 */

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const ASSET = 'urn:oc:entity:santander:environmental:libelium:g1:sensor1';

/** The ```sh blocks of a section of the README, in order. */
export function shellBlocks(markdown: string, section: string): string[] {
  const start = markdown.indexOf(`## ${section}\n`);
  assert.ok(start >= 0, `the README has a section "${section}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const text = markdown.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
}

/** The lines a block's comments say it prints (`# HTTP/1.1 201 Created`, `# location: …`). */
const expectedLines = (block: string): string[] =>
  block.split('\n').filter((l) => /^# (HTTP\/|location:)/i.test(l)).map((l) => l.slice(2));

/**
 * Runs a script; what it printed on stdout, and stderr apart: curl writes its progress meter there
 * when its output is not a terminal, and the two pipes' chunks may arrive in any order.
 */
function runShell(script: string, env: Record<string, string>, timeoutMs: number): Promise<{ code: number | string; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? signal ?? -1, out, err });
    });
  });
}

describe("the README's steps, as written", { timeout: 240_000 }, () => {
  let dir: string;
  let server: ServerProcess;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'opencity-readme-'));
    server = await startServer({ DATABASE_URL: `sqlite:${path.join(dir, 'opencity.db')}`, LOG_FORMAT: 'json' });
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the first block installs and starts, the second tests', () => {
    const intro = README.slice(0, README.indexOf('\n## '));
    const [first, second] = [...intro.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);
    assert.equal(first?.trim(), 'npm install && npm start');
    assert.equal(second?.trim(), 'npm test');
  });

  it('adds a site, gets a token, pushes and updates an asset, reads it back and subscribes to its changes', async () => {
    const blocks = shellBlocks(README, 'What you do next');
    assert.ok(blocks.length >= 6, 'steps 1 to 6');
    const steps = blocks.filter((b) => !/\bnpm run demo\b/.test(b));
    assert.equal(steps.length, 5);
    const port = String(server.port);
    const script = [
      'set -euo pipefail',
      // `npx opencity` is the command from its sources, on this test's store.
      `npx() { if [ "$1" = opencity ]; then shift; node --import tsx ${JSON.stringify(path.join(ROOT, 'src/cli/main.ts'))} "$@"; else command npx "$@"; fi; }`,
      // Markers on lines of their own (curl -s prints its answer without a final newline).
      ...steps.map((block, i) => `printf '\\n@@step ${i + 1}@@\\n'\n${block.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)}`),
      "printf '\\n@@end@@\\n'",
      'test -n "$SECRET" && test "$SECRET" != null && test -n "$TOKEN" && test "$TOKEN" != null && echo "secret and token are set"',
    ].join('\n');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? dir,
      DATABASE_URL: `sqlite:${path.join(dir, 'opencity.db')}`, LOG_LEVEL: 'silent', NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1',
    };
    const { code, out, err } = await runShell(script, env, 180_000);
    assert.equal(code, 0, `${out}\n${err}`);
    const parts = out.split(/^@@(?:step \d+|end)@@$/m).slice(1, -1);
    assert.equal(parts.length, 5, out);
    for (const [i, block] of steps.entries()) {
      for (const line of expectedLines(block)) {
        const pattern = new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('…', '.*')}\\r?$`, 'm');
        assert.match(parts[i] as string, pattern, `step ${i + 1} prints "${line}"`);
      }
    }
    assert.match(out, /^secret and token are set$/m);
    // Discovery lists the asset and its site; the datasource has both readings.
    assert.ok((parts[3] as string).includes(`"id":"${ASSET}"`), parts[3]);
    assert.ok((parts[3] as string).includes('"id":"santander"'), parts[3]);
    assert.match(parts[3] as string, /"attrValue":"14\.5"\}.*"attrValue":"14\.9"\}/);
    // The subscription is listed as it was written.
    assert.match(parts[4] as string, /"description":"Santander temperatures"/);
  });

  it('the live stream command, replaying from the start, prints the asset\'s create and update as events', async () => {
    const section = README.slice(README.indexOf('## What you do next\n'));
    const command = /`(curl -N '[^`]*\/discovery\/v0\/assets\/events[^`]*)`/.exec(section)?.[1];
    assert.ok(command, 'the README shows the live stream command');
    const replay = /`(-H 'Last-Event-ID: 0')`/.exec(section)?.[1];
    assert.ok(replay, 'and how to replay from the start');
    // A stream never ends by itself: curl stops it after 3 s here (exit 28), as Ctrl-C would.
    const script = `${command.replaceAll('127.0.0.1:8080', `127.0.0.1:${server.port}`)} ${replay} -s --max-time 3; test $? = 28`;
    const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', NO_PROXY: '127.0.0.1', no_proxy: '127.0.0.1' };
    const { code, out, err } = await runShell(script, env, 30_000);
    assert.equal(code, 0, `${out}\n${err}`);
    assert.match(out, new RegExp(`^event: create\\ndata: \\{"id":"${ASSET}"`, 'm'));
    assert.match(out, new RegExp(`^event: update\\ndata: \\{"id":"${ASSET}"`, 'm'));
  });
});
