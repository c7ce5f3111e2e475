import fs from 'node:fs';

/** The Chromium the browser tests drive (playwright-core launches it; nothing is downloaded). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/**
 * The `skip` option of a browser test: skipped, with the reason, when Chromium is missing on a
 * developer's machine; never skipped under CI, where a missing browser must fail the run instead
 * of passing it silently.
 */
export function skipWithoutChromium(env: Record<string, string | undefined> = process.env, exists: (file: string) => boolean = fs.existsSync): string | false {
  if (exists(CHROMIUM)) return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0') return false;
  return `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`;
}

/** Fails with a clear message when the browser is missing (under CI, where the test is not skipped). */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it or set CHROMIUM_PATH (CI needs the browser tests)`);
}

const WEB = new URL('../../web/', import.meta.url).pathname;
const PAGE = `${WEB}dist/index.html`;

/** The newest modification time of the page's sources (its build and dependencies left out). */
function newestSource(dir: string): number {
  let time = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const file = `${dir}/${entry.name}`;
    time = Math.max(time, entry.isDirectory() ? newestSource(file) : fs.statSync(file).mtimeMs);
  }
  return time;
}

/**
 * The observatory page as built from the sources now, built again only when they are newer.
 * The test runner builds it once before the browser tests start (OPENCITY_WEB_BUILT), so that
 * tests running side by side never rebuild the page another one is serving.
 */
export async function ensureWebBuilt(): Promise<void> {
  if (process.env.OPENCITY_WEB_BUILT === '1') return;
  if (fs.existsSync(PAGE) && fs.statSync(PAGE).mtimeMs >= newestSource(WEB)) return;
  const { build } = await import('vite');
  await build({ configFile: `${WEB}vite.config.ts`, logLevel: 'error' });
}
