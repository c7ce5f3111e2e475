import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Socket } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuilt, requireChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { ROOT } from '../helpers/cli.js';
import { listenOnLoopback } from '../helpers/event-stream.js';
import { assetBody, create, remove, update } from '../helpers/federation.js';
import { startPlatform, type TestPlatform } from '../helpers/platform.js';

/**
 * The observatory's live map in real headless Chromium: markers appear, move
 * and disappear as a site pushes changes, the open asset's values and chart
 * follow, and a dropped connection resumes without missing a change.
 */

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'observatory-live');
const CENTRE = { latitude: 43.4623, longitude: -3.80998 };

const skip = skipWithoutChromium();
const id = (name: string) => `urn:oc:entity:santander:environmental:fixed:${name}`;
const at = (dLat: number, dLon: number) => ({
  location: { type: 'geo:json', value: { type: 'Point', coordinates: [CENTRE.longitude + dLon, CENTRE.latitude + dLat] } },
});

describe('observatory: the live map', { skip, timeout: 240_000 }, () => {
  let p: TestPlatform;
  let base: string;
  let token: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const sockets = new Set<Socket>();
  const problems: string[] = [];
  let observed = Date.now();
  /** An update's attributes, observed now (each later than the last). */
  const reading = (attributes: Record<string, unknown>) => {
    observed = Math.max(observed + 1000, Date.now());
    // Received now by the page's clock too, so its charts' ranges hold the reading.
    p.clock.set(Date.now());
    return { TimeInstant: { type: 'urn:oc:attributeType:ISO8601', value: new Date(observed).toISOString() }, ...attributes };
  };
  const point = (name: string) => page.locator(`[data-testid="asset-point"][data-asset-id="${id(name)}"]`);
  const shot = async (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

  before(async () => {
    requireChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWebBuilt();
    p = await startPlatform('sqlite');
    // The page judges "online" by its own clock: the platform's starts at the same time.
    p.clock.set(Date.now());
    p.app.server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    base = await listenOnLoopback(p.app);
    token = await p.siteToken('santander', CENTRE);
    // Far enough apart not to cluster at the site's zoom.
    for (const [name, dLat, dLon] of [['a', 0, -0.03], ['b', 0.02, 0.02], ['c', -0.02, 0.03]] as const) {
      const body = assetBody(id(name), { ...reading({}), ...at(dLat, dLon) });
      assert.equal((await create(p, token, body)).statusCode, 201);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1360, height: 860 } });
    page = await context.newPage();
    page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource|ERR_INTERNET_DISCONNECTED|network/i.test(m.text())) problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  });

  after(async () => {
    await browser?.close();
    await p?.close();
  });

  it('follows the area in view: markers appear, move and disappear as the site reports, under a live indicator', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('[data-testid="site-marker"][data-site="santander"]');
    await page.waitForSelector('[data-testid="map-status"][data-mode="assets"]', { timeout: 15_000 });
    await point('a').waitFor();
    await page.waitForSelector('[data-testid="live-indicator"][data-state="live"]', { timeout: 15_000 });
    await shot('01-live');

    assert.equal((await create(p, token, assetBody(id('d'), { ...reading({}), ...at(-0.025, -0.025) }))).statusCode, 201);
    await point('d').waitFor({ timeout: 15_000 });

    const before = await point('d').boundingBox();
    assert.equal((await update(p, token, id('d'), reading(at(0.025, -0.05)))).statusCode, 204);
    await page.waitForFunction(([sel, y]) => {
      const box = document.querySelector(sel as string)?.getBoundingClientRect();
      return box !== undefined && Math.abs(box.y - (y as number)) > 20;
    }, [`[data-testid="asset-point"][data-asset-id="${id('d')}"]`, before?.y ?? 0] as const, { timeout: 15_000 });
    await shot('02-moved');

    assert.equal((await remove(p, token, id('d'))).statusCode, 204);
    await point('d').waitFor({ state: 'detached', timeout: 15_000 });
    // Leaving the area is told too: the marker goes when its asset moves far away.
    assert.equal((await update(p, token, id('c'), reading(at(5, 5)))).statusCode, 204);
    await point('c').waitFor({ state: 'detached', timeout: 15_000 });
    assert.deepEqual(problems, []);
  });

  it('the open asset panel\'s values and chart follow its readings', async () => {
    await point('a').click();
    await page.locator('[data-testid="asset-panel"]').waitFor({ state: 'visible' });
    const value = page.locator('[data-testid="attribute"][data-name="temperature"] .attribute-value');
    await value.waitFor();
    const chart = page.locator('[data-testid="asset-chart"]');
    await page.waitForSelector('[data-testid="asset-chart"]:not([data-state="loading"])', { timeout: 15_000 });
    const points = Number(await chart.getAttribute('data-points'));

    assert.equal((await update(p, token, id('a'), reading({ temperature: { type: 'Number', value: 31.25 } }))).statusCode, 204);
    await page.waitForFunction(() => /31\.25/.test(document.querySelector('[data-testid="attribute"][data-name="temperature"] .attribute-value')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="asset-chart"]')?.getAttribute('data-points')) > n, points, { timeout: 15_000 });
    await shot('03-panel');
    assert.deepEqual(problems, []);
  });

  it('resumes after a network drop without missing the changes made meanwhile', async () => {
    await context.setOffline(true);
    for (const socket of sockets) socket.destroy();
    await page.waitForSelector('[data-testid="live-indicator"][data-state="connecting"]', { timeout: 15_000 });
    assert.equal((await create(p, token, assetBody(id('e'), { ...reading({}), ...at(0.01, -0.06) }))).statusCode, 201);
    assert.equal((await update(p, token, id('a'), reading({ temperature: { type: 'Number', value: 12.5 } }))).statusCode, 204);
    await shot('04-offline');
    await context.setOffline(false);
    await page.waitForSelector('[data-testid="live-indicator"][data-state="live"]', { timeout: 30_000 });
    await point('e').waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => /12\.5/.test(document.querySelector('[data-testid="attribute"][data-name="temperature"] .attribute-value')?.textContent ?? ''), undefined, { timeout: 15_000 });
    await shot('05-resumed');
  });
});
