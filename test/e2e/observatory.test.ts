import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuilt, requireChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { ROOT, opencity, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/stores.js';
import { freePort } from '../helpers/free-port.js';

/**
 * The observatory page in real headless Chromium against the whole platform, in-process on a
 * loopback port, over the demo data set. Each step leaves a screenshot in test-artifacts/observatory/.
 */

const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'observatory');
const USER = 'observer';
const PASSWORD = 'a long demo passphrase';


const skip = skipWithoutChromium();

describe('observatory page', { skip, timeout: 480_000 }, () => {
  let db: TestDatabase;
  let platform: OpenCity;
  let base: string;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const requests: string[] = [];

  const shot = async (name: string, target: Page = page): Promise<void> => {
    await target.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
  };
  const watch = (p: Page): void => {
    p.on('console', (m: ConsoleMessage) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('request', (r) => requests.push(r.url()));
  };
  const shown = async (): Promise<number> => Number(await page.getAttribute('[data-testid="map-status"]', 'data-count'));

  before(async () => {
    requireChromium();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWebBuilt();
    db = await createTestDatabase('sqlite');
    // Two days of history are enough for the charts and load in a fraction of the default week.
    const demo = await runCli(['demo', '--days', '2'], { DATABASE_URL: db.url }, 300_000);
    assert.equal(demo.code, 0, `opencity demo failed: ${demo.stderr}`);
    const user = await opencity(db.url, 'user', 'add', USER, '--email', `${USER}@example.org`, '--password', PASSWORD);
    assert.equal(user.code, 0, `opencity user add failed: ${user.stderr}`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    platform = await buildApp({ config: testConfig({ databaseUrl: db.url, publicUrl: base }) });
    await platform.app.listen({ port, host: '127.0.0.1' });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1360, height: 860 } })).newPage();
    watch(page);
  });

  after(async () => {
    await browser?.close();
    await platform?.app.close();
    await db?.drop();
  });

  it('shows one marker per site on the world map', async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('[data-testid="site-marker"][data-site="santander"]');
    const sites = await page.locator('[data-testid="site-marker"]').count();
    assert.ok(sites >= 2, `expected the demo sites, saw ${sites} markers`);
    assert.equal(await page.getAttribute('[data-testid="map-status"]', 'data-mode'), 'sites');
    await shot('01-world');
  });

  let inView = 0;
  it('zooming into Santander shows its assets', async () => {
    await page.click('[data-testid="site-marker"][data-site="santander"]');
    await page.waitForSelector('[data-testid="map-status"][data-mode="assets"]', { timeout: 15_000 });
    await page.waitForSelector('[data-testid="asset-point"], [data-testid="asset-cluster"]');
    inView = await shown();
    assert.ok(inView > 0, 'no assets in view over Santander');
    assert.ok(await page.locator('[data-testid="asset-item"]').count() > 0, 'the asset list is empty');
    await page.waitForTimeout(400);
    await shot('02-santander');
  });

  it('a filter narrows the assets shown', async () => {
    // The rarest type in view, from the legend, is sure to narrow the view without emptying it.
    const legend = await page.$$eval('[data-testid="legend-item"]', (items) => items.map((el) => ({
      type: (el as HTMLElement).dataset.type ?? '',
      count: Number(el.querySelector('.legend-count')?.textContent?.replace(/\D/g, '') ?? 0),
    })));
    assert.ok(legend.length >= 2, `expected several asset types over Santander, saw ${legend.length}`);
    const rarest = legend.reduce((a, b) => (b.count < a.count ? b : a));
    await page.selectOption('[data-testid="filter-type"]', rarest.type);
    // The view may still be settling from the zoom: the status and the legend are compared as they are drawn, not as first read.
    await page.waitForFunction((type) => {
      const status = document.querySelector('[data-testid="map-status"]');
      const item = Array.from(document.querySelectorAll<HTMLElement>('[data-testid="legend-item"]')).find((el) => el.dataset.type === type);
      const n = Number(item?.querySelector('.legend-count')?.textContent?.replace(/\D/g, '') ?? NaN);
      return status?.getAttribute('data-mode') === 'assets' && Number(status.getAttribute('data-count')) === n;
    }, rarest.type);
    const narrowed = await shown();
    assert.ok(narrowed > 0 && narrowed < inView, `filter gave ${narrowed} of ${inView}`);
    const types = await page.$$eval('[data-testid="asset-point"]', (els) => els.length);
    assert.ok(types <= narrowed);
    await shot('03-filtered');
  });

  it('clicking an asset shows its attributes and a chart of its readings', async () => {
    const panel = page.locator('[data-testid="asset-panel"]');
    // The points are drawn again as the view settles: a click that met a point just replaced is made again, as a user would.
    for (let attempt = 0; attempt < 3 && !(await panel.isVisible()); attempt++) {
      const point = page.locator('[data-testid="asset-point"]').first();
      if (await point.isVisible().catch(() => false)) await point.click();
      else await page.click('[data-testid="asset-item"] >> nth=0');
      await panel.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
    }
    await panel.waitFor({ state: 'visible' });
    await page.waitForSelector('[data-testid="attribute-list"] [data-testid="attribute"]');
    assert.ok(await page.locator('[data-testid="attribute"]').count() > 0);

    const chart = page.locator('[data-testid="asset-chart"]');
    await page.waitForSelector('[data-testid="asset-chart"]:not([data-state="loading"])', { timeout: 15_000 });
    // Demo readings may end some time ago: widen the range until the chart has points.
    for (const range of ['7d', '30d']) {
      if (await chart.getAttribute('data-state') === 'ready') break;
      await page.click(`label[for$="-${range}"]`);
      await page.waitForSelector('[data-testid="asset-chart"]:not([data-state="loading"])', { timeout: 15_000 });
    }
    assert.equal(await chart.getAttribute('data-state'), 'ready', await page.textContent('.chart-status') ?? '');
    assert.ok(Number(await chart.getAttribute('data-points')) > 0);
    assert.ok(await page.locator('[data-testid="asset-chart"] canvas').count() > 0);
    await chart.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await shot('04-asset');

    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
  });

  it('signs in with the platform\'s identity provider (code + PKCE) and out again', async () => {
    await page.click('[data-testid="sign-in"]');
    await page.waitForSelector('input[name="username"]');
    await shot('05-login');
    await page.fill('input[name="username"]', USER);
    await page.fill('input[name="password"]', PASSWORD);
    await page.press('input[name="password"]', 'Enter');
    await page.waitForSelector('[data-testid="user-name"]:not([hidden])', { timeout: 15_000 });
    assert.equal(await page.textContent('[data-testid="user-name"]'), USER);
    assert.equal(new URL(page.url()).search, '', 'the code and state stay in the address');
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForSelector('[data-testid="map-status"]:not([data-mode="loading"])');
    await shot('06-signed-in');
    await page.click('[data-testid="sign-out"]');
    await page.waitForSelector('[data-testid="user-name"]', { state: 'hidden' });
    assert.equal(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.includes('session')).length), 0);
  });

  it('fits a phone-sized screen', async () => {
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 800 }, isMobile: true, hasTouch: true })).newPage();
    watch(phone);
    await phone.goto(`${base}/`);
    await phone.waitForSelector('body[data-ready="true"]');
    const sheet = await phone.locator('#side-panel').boundingBox();
    assert.ok(sheet && sheet.y > 400, 'the side panel is not a bottom sheet on a phone');
    await shot('07-phone', phone);
    await phone.close();
  });

  it('stays on its own origin, asks only for the visible area, and logs no console errors', () => {
    const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith('data:'));
    assert.deepEqual(foreign, [], 'requests left the platform');
    const geo = requests.filter((u) => u.includes('/discovery/v0/assets/geo'));
    assert.ok(geo.length > 0);
    for (const u of geo) {
      const q = new URL(u).searchParams;
      assert.equal(q.get('query'), 'polygon', u);
      assert.ok(Number(q.get('per')) <= 1000, u);
    }
    assert.deepEqual(problems, []);
  });
});
