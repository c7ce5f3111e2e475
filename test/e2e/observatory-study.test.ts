import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { positionAttribute, timeInstant } from '../../src/demo/bodies.js';
import { createAsset } from '../../src/services/federation.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureWebBuilt, requireChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { createTestDatabase, STORES, type StoreKind, type TestDatabase } from '../helpers/stores.js';
import { startTileServer, type TileServer } from '../helpers/tile-server.js';

/**
 * The observatory as someone who studies a city uses it, in headless Chromium over the demo data
 * set, with street tiles from a loopback fixture server: tiles and their fallback, any time range,
 * zoom and reset, comparison, colour by value, CSV, a shared address, the matches elsewhere and the
 * small faults, on each store. Screenshots go to test-artifacts/observatory-study/<store>/.
 */

const REAL = 'urn:oc:entity:santander:environmental:fixed:459';
const OTHER = 'urn:oc:entity:santander:environmental:fixed:462';
const ATTR = 'temperature:ambient';
const HOUR = 3_600_000;
/** Beside the demo: an asset of Santander whose temperature is a word, and whose soil temperature is a number (both in °C). */
const WORDY = 'urn:oc:entity:santander:environmental:fixed:wordy';
/** Six real entities compared, and a seventh opened beside them. */
const SIX = [459, 460, 462, 463, 465, 466].map((n) => `urn:oc:entity:santander:environmental:fixed:${n}`);
const SEVENTH = 'urn:oc:entity:santander:environmental:fixed:467';

const skip = skipWithoutChromium();

for (const kind of STORES) studyOn(kind);

function studyOn(kind: StoreKind): void {
  describe(`observatory for studying a city [${kind}]`, { skip, timeout: 480_000 }, () => {
    const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'observatory-study', kind);
    let db: TestDatabase;
    let platform: OpenCity;
    let tiles: TileServer;
    let base: string;
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];
    const requests: string[] = [];

    const shot = async (name: string, target: Page = page): Promise<void> => {
      await target.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });
    };
    const fresh = async (): Promise<{ context: BrowserContext; page: Page }> => {
      const c = await browser.newContext({ viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', acceptDownloads: true });
      const p = await c.newPage();
      p.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
      p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      p.on('request', (r) => requests.push(r.url()));
      return { context: c, page: p };
    };
    const chartSettled = (p: Page = page) => p.waitForSelector('[data-testid="asset-chart"]:not([data-state="loading"])', { timeout: 20_000 });
    /** A fresh load of the page at this address (not a change of fragment in the loaded page). */
    const open = async (hash: string, p: Page = page): Promise<void> => {
      await p.goto('about:blank');
      await p.goto(`${base}/${hash}`);
      await p.waitForSelector('body[data-ready="true"]');
    };
    const readings = async (urn: string, attr: string): Promise<{ recvTime: string }[]> => {
      const res = await fetch(`${base}/datasource/${encodeURIComponent(urn)}/${encodeURIComponent(attr)}/readings?limit=1000`);
      return ((await res.json()) as { readings: { recvTime: string }[] }).readings;
    };

    before(async () => {
      requireChromium();
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await ensureWebBuilt();
      tiles = await startTileServer();
      db = await createTestDatabase(kind);
      const demo = await runCli(['demo', '--days', '2'], { DATABASE_URL: db.url }, 300_000);
      assert.equal(demo.code, 0, `opencity demo failed: ${demo.stderr}`);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      platform = await buildApp({
        config: testConfig({ databaseUrl: db.url, publicUrl: base, mapTiles: tiles.template, mapTilesAttribution: 'Test tiles', onlineWindowMs: 12 * HOUR }),
      });
      await platform.app.listen({ port, host: '127.0.0.1' });
      // Through the federation service, as the demo's assets came; away from the views the tests look at.
      await createAsset(platform.ctx, 'santander', {
        id: WORDY, type: 'urn:oc:entityType:iotdevice',
        TimeInstant: timeInstant(Date.now()),
        position: positionAttribute('coords', 43.4712, -3.7855)[1],
        [ATTR]: { type: `urn:oc:attributeType:${ATTR}`, value: 'hot' },
        'temperature:soil': { type: 'urn:oc:attributeType:temperature:soil', value: 12.25 },
      });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
      ({ page } = await fresh());
    });

    after(async () => {
      await browser?.close();
      await platform?.app.close();
      await tiles?.close();
      await db?.drop();
    });

    it('draws the street map from the tile server, with its credit, and says the platform\'s online window', async () => {
      await open('#map=17/43.4623/-3.81');
      await page.waitForSelector('#map[data-tiles="drawn"]');
      assert.ok(tiles.served() > 0);
      assert.match(await page.textContent('.leaflet-control-attribution') ?? '', /Test tiles/);
      assert.equal(await page.locator('[data-testid="tiles-fallback"]').count(), 0);
      await page.goto(`${base}/`);
      await page.waitForSelector('[data-testid="map-status"][data-mode="sites"]');
      assert.match(await page.textContent('[data-testid="map-status"]') ?? '', /online in the last 12 h/);
      await open('#map=17/43.4623/-3.81');
      await page.waitForSelector('[data-testid="asset-point"]');
      await page.waitForTimeout(500);
      await shot('01-street-map');
    });

    it('falls back to the outlines by itself when the tile server is down', async () => {
      const down = await fresh();
      await down.context.route(`${tiles.origin}/**`, (route) => route.abort('connectionrefused'));
      await open('#map=17/43.4623/-3.81', down.page);
      await down.page.waitForSelector('[data-testid="tiles-fallback"]');
      assert.equal(await down.page.getAttribute('#map', 'data-tiles'), 'fallback');
      await shot('02-tiles-fallback', down.page);
      await down.context.close();
      // The tiles' failures are the browser's own report of the refused connections, not the page's.
      for (let i = problems.length - 1; i >= 0; i--) if (problems[i]!.includes('ERR_CONNECTION_REFUSED') || problems[i]!.includes('Failed to load resource')) problems.splice(i, 1);
    });

    it('draws any chosen range with the axis on that range, with many, one or no readings', async () => {
      const times = (await readings(REAL, ATTR)).map((r) => Date.parse(r.recvTime));
      assert.ok(times.length > 10);
      const many = { from: times[0]! - HOUR, to: times[times.length - 1]! + HOUR };
      const one = { from: times[3]! - 10 * 60_000, to: times[3]! + 10 * 60_000 };
      const none = { from: times[0]! - 400 * 24 * HOUR, to: times[0]! - 300 * 24 * HOUR };
      for (const [name, range, points] of [['many', many, times.length], ['one', one, 1], ['none', none, 0]] as const) {
        await open(`#asset=${encodeURIComponent(REAL)}&attr=${encodeURIComponent(ATTR)}&from=${new Date(range.from).toISOString()}&to=${new Date(range.to).toISOString()}`);
        await chartSettled();
        const chart = page.locator('[data-testid="asset-chart"]');
        assert.equal(await chart.getAttribute('data-from'), new Date(range.from).toISOString(), name);
        assert.equal(await chart.getAttribute('data-to'), new Date(range.to).toISOString(), name);
        assert.equal(Number(await chart.getAttribute('data-points')), points, name);
        assert.equal(await chart.getAttribute('data-state'), points ? 'ready' : 'empty', name);
        assert.equal(await page.inputValue('[data-testid="chart-from"]'), new Date(range.from).toISOString().slice(0, 16), name);
        await chart.scrollIntoViewIfNeeded();
        await shot(`03-range-${name}`);
      }
      assert.match(await page.textContent('[data-testid="chart-status"]') ?? '', /No readings in this period/);
    });

    it('zooms by dragging across the chart and comes back with a double click; a year uses daily means', async () => {
      await open(`#asset=${encodeURIComponent(REAL)}&attr=${encodeURIComponent(ATTR)}&range=7d`);
      await chartSettled();
      const chart = page.locator('[data-testid="asset-chart"]');
      const wide = [await chart.getAttribute('data-from'), await chart.getAttribute('data-to')].map((d) => Date.parse(d!));
      const area = (await page.locator('[data-testid="chart-area"]').boundingBox())!;
      await page.mouse.move(area.x + area.width * 0.7, area.y + area.height / 2);
      await page.mouse.down();
      await page.mouse.move(area.x + area.width * 0.9, area.y + area.height / 2, { steps: 5 });
      await page.mouse.up();
      await page.waitForFunction((from) => Date.parse(document.querySelector('[data-testid="asset-chart"]')?.getAttribute('data-from') ?? '') > from, wide[0]!);
      await chartSettled();
      const zoomed = [await chart.getAttribute('data-from'), await chart.getAttribute('data-to')].map((d) => Date.parse(d!));
      assert.ok(zoomed[1]! - zoomed[0]! < (wide[1]! - wide[0]!) / 3, 'the drag narrowed the range');
      assert.match(new URL(page.url()).hash, /from=.*&to=/);
      await shot('04-zoomed');
      await page.dblclick('[data-testid="chart-area"]');
      await page.waitForFunction((span) => {
        const c = document.querySelector('[data-testid="asset-chart"]');
        return Date.parse(c?.getAttribute('data-to') ?? '') - Date.parse(c?.getAttribute('data-from') ?? '') > span;
      }, (wide[1]! - wide[0]!) * 0.9);
      assert.match(new URL(page.url()).hash, /range=7d/);
      await page.click('label[for$="-1y"]');
      await chartSettled();
      assert.match(await page.textContent('[data-testid="chart-status"]') ?? '', /daily means/);
    });

    it('compares two assets on one chart, each in its colour with a legend, and downloads what it shows as CSV', async () => {
      await open(`#asset=${encodeURIComponent(REAL)}&attr=${encodeURIComponent(ATTR)}&range=7d`);
      await chartSettled();
      await page.click('[data-testid="compare-add"]');
      await page.waitForSelector('[data-testid="compare-item"]');
      // Another asset opened by its address in the same tab: the comparison stays.
      await page.goto(`${base}/${new URL(page.url()).hash.replace(`asset=${REAL}`, `asset=${OTHER}`)}`);
      await page.waitForSelector('[data-testid="asset-chart"][data-lines="2"]', { timeout: 20_000 });
      const legend = await page.$$eval('[data-testid="asset-chart"] .u-legend .u-series', (els) => els.map((e) => e.textContent ?? ''));
      assert.equal(legend.length, 3, 'time and two series in the legend');
      assert.ok(legend.some((t) => t.includes('Fixed 459')) && legend.some((t) => t.includes('Fixed 462')), legend.join(' | '));
      await page.locator('[data-testid="asset-chart"]').scrollIntoViewIfNeeded();
      await shot('05-comparison');

      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="chart-csv"]')]);
      const text = fs.readFileSync((await download.path())!, 'utf8');
      const lines = text.trimEnd().split('\r\n');
      assert.match(lines[0]!, /^time,Fixed 462 · temperature:ambient \(hourly mean\) \(°C\),Fixed 459 · temperature:ambient \(hourly mean\) \(°C\)$/);
      assert.ok(lines.length > 10);
      assert.match(lines[1]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z,/);
      assert.match(download.suggestedFilename(), /\.csv$/);

      const href = await page.getAttribute('[data-testid="history-export"]', 'href');
      assert.match(href!, new RegExp(`^/datasource/${encodeURIComponent(OTHER)}/export\\?from=1970-01-01T00%3A00%3A00.000Z&to=\\d{4}-`));
    });

    it('keeps the chart and the comparison list in agreement with six series compared and a seventh asset open', async () => {
      await open(`#asset=${encodeURIComponent(SEVENTH)}&attr=${encodeURIComponent(ATTR)}&range=7d&cmp=${SIX.map((id) => encodeURIComponent(`${id}~${ATTR}`)).join(',')}`);
      await page.waitForSelector('[data-testid="asset-chart"][data-lines="6"]:not([data-state="loading"])', { timeout: 20_000 });
      const seen = await page.evaluate(() => ({
        legend: Array.from(document.querySelectorAll('[data-testid="asset-chart"] .u-legend .u-series'), (e) => ({
          text: e.textContent ?? '', colour: getComputedStyle(e.querySelector('.u-marker') ?? e).borderColor,
        })).slice(1),
        list: Array.from(document.querySelectorAll('[data-testid="compare-item"]'), (e) => ({
          label: e.querySelector('.compare-label')?.firstChild?.textContent ?? '', drawn: e.getAttribute('data-drawn'),
          swatch: e.querySelector('.swatch')?.className ?? '', colour: getComputedStyle(e.querySelector('.swatch')!).backgroundColor,
        })),
      }));
      // Six lines: the open asset's first, then five of the six compared; the sixth is listed as not drawn.
      assert.equal(seen.legend.length, 6);
      assert.ok(seen.legend[0]!.text.includes('Fixed 467'), seen.legend[0]!.text);
      assert.equal(seen.list.length, 6, 'every compared series stays listed');
      assert.deepEqual(seen.list.map((i) => i.swatch), ['swatch s1', 'swatch s2', 'swatch s3', 'swatch s4', 'swatch s5', 'swatch off']);
      assert.deepEqual(seen.list.map((i) => i.drawn), ['true', 'true', 'true', 'true', 'true', 'false']);
      for (const item of seen.list.filter((i) => i.drawn === 'true')) {
        const line = seen.legend.find((l) => l.text.startsWith(item.label));
        assert.ok(line, `${item.label} listed as drawn but not in the legend`);
        assert.equal(line.colour, item.colour, `${item.label}: the list's colour is the line's`);
      }
      assert.ok(!seen.legend.some((l) => l.text.includes('Fixed 466')), 'the series listed as not drawn is not drawn');
      assert.match(await page.textContent('[data-testid="chart-status"]') ?? '', /1 compared series not drawn/);
      const add = page.locator('[data-testid="compare-add"]');
      assert.equal(await add.isDisabled(), true);
      assert.equal(await add.textContent(), 'Comparison full (6)');
      await page.locator('[data-testid="compare-list"]').scrollIntoViewIfNeeded();
      await shot('05b-comparison-full');
    });

    it('colours the markers by a value with a legend of its range, grey without it', async () => {
      // Beside a bus stop, which measures no temperature.
      await open('#map=17/43.45487/-3.81289');
      await page.waitForSelector('[data-testid="asset-point"]');
      await page.selectOption('[data-testid="colour-by"]', ATTR);
      await page.waitForSelector('[data-testid="colour-legend"][data-state="ready"]');
      const min = Number(await page.getAttribute('[data-testid="colour-legend"]', 'data-min'));
      const max = Number(await page.getAttribute('[data-testid="colour-legend"]', 'data-max'));
      assert.ok(Number.isFinite(min) && max > min, `${min}–${max}`);
      const classes = await page.$$eval('[data-testid="asset-point"]', (els) => els.map((e) => e.className));
      assert.ok(classes.some((c) => /\bv[0-7]\b/.test(c)), 'some markers take the scale');
      const grey = await page.$$eval('[data-testid="asset-point"].vnone', (els) => els.length);
      const without = Number((await page.textContent('.colour-none') ?? '').replace(/\D/g, ''));
      assert.ok(without > 0 && grey <= without, `${grey} grey markers shown, ${without} without the attribute in view`);
      assert.match(new URL(page.url()).hash, /colour=temperature:ambient/);
      await page.waitForTimeout(300);
      await shot('06-colour-by-value');
    });

    it('restores a shared view exactly in a fresh browser', async () => {
      await open(`#map=15.5/43.46/-3.805&type=${encodeURIComponent('urn:oc:entityType:iotdevice')}&colour=${encodeURIComponent(ATTR)}&asset=${encodeURIComponent(REAL)}&attr=batteryLevel&from=2026-01-01T00:00:00.000Z&to=2026-01-08T00:00:00.000Z&cmp=${encodeURIComponent(`${OTHER}~${ATTR}`)}`);
      await chartSettled();
      const shared = page.url();
      const other = await fresh();
      await other.page.goto(shared);
      await other.page.waitForSelector('body[data-ready="true"]');
      await chartSettled(other.page);
      await other.page.waitForSelector('[data-testid="colour-legend"][data-state="ready"]');
      assert.equal(other.page.url(), shared);
      assert.equal(await other.page.inputValue('[data-testid="filter-type"]'), 'urn:oc:entityType:iotdevice');
      assert.equal(await other.page.inputValue('[data-testid="colour-by"]'), ATTR);
      assert.equal(await other.page.inputValue('[data-testid="chart-attribute"]'), 'batteryLevel');
      assert.equal(await other.page.getAttribute('[data-testid="asset-chart"]', 'data-from'), '2026-01-01T00:00:00.000Z');
      assert.equal(await other.page.locator('[data-testid="compare-item"]').count(), 1);
      assert.equal(await other.page.textContent('[data-testid="asset-urn"]'), REAL);
      await shot('07-shared-view', other.page);
      await other.context.close();
    });

    it('offers the matches elsewhere when a filter matches nothing in view', async () => {
      await open('#map=17/43.4623/-3.81');
      await page.waitForSelector('[data-testid="asset-point"]');
      await page.selectOption('[data-testid="filter-type"]', 'urn:oc:entityType:trainstation');
      const button = page.locator('[data-testid="show-matches"]');
      await button.waitFor({ state: 'visible' });
      const n = Number(await button.getAttribute('data-count'));
      assert.ok(n > 0);
      assert.equal(await button.textContent(), `Show the ${n} matches`);
      await shot('08-no-match-here');
      await button.click();
      await page.waitForFunction((want) => Number(document.querySelector('[data-testid="map-status"]')?.getAttribute('data-count')) === want, n, { timeout: 20_000 });
      await page.waitForTimeout(300);
      await shot('09-matches');
    });

    it('fixes the small faults: no "null" provider, an unknown asset has no status, no unit after a text', async () => {
      await open('#map=17/43.4623/-3.81');
      await page.waitForSelector('[data-testid="asset-item"]');
      const rows = await page.$$eval('[data-testid="asset-item"]', (els) => els.map((e) => e.textContent ?? ''));
      assert.ok(rows.every((t) => !/\bnull\b/.test(t)), rows.find((t) => /\bnull\b/.test(t)));
      const labels = await page.$$eval('.asset-icon[aria-label]', (els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
      assert.ok(labels.every((t) => !/\bnull\b/.test(t)));

      const logged = problems.length;
      await open('#asset=Nope');
      await page.waitForSelector('[data-testid="asset-panel"] [role="alert"]');
      // The browser itself logs the platform's 404 for the unknown asset; the page adds nothing.
      const extra = problems.splice(logged);
      assert.ok(extra.every((m) => m.includes('404')), extra.join('\n'));
      assert.equal(await page.textContent('#asset-title'), 'Asset not found');
      assert.equal(await page.locator('[data-testid="asset-status"]').count(), 0);
      assert.doesNotMatch(await page.textContent('[data-testid="asset-panel"]') ?? '', /Updated never|Offline/);
      await shot('10-unknown-asset');

      await open(`#asset=${encodeURIComponent(WORDY)}`);
      const value = (name: string) => page.locator(`[data-testid="attribute"][data-name="${name}"] .attribute-value`);
      await value(ATTR).waitFor();
      assert.equal(await value(ATTR).textContent(), 'hot', 'a text value without the unit of its type');
      assert.equal(await value(ATTR).locator('.unit').count(), 0);
      assert.equal(await value('temperature:soil').textContent(), '12.25 °C', 'a number with the unit of its type');
      await shot('11-text-value');
    });

    it('contacts only its own origin and the configured tile server, and logs no console errors', () => {
      const foreign = requests.filter((u) => !u.startsWith(base) && !u.startsWith(tiles.origin) && !u.startsWith('data:') && !u.startsWith('blob:'));
      assert.deepEqual(foreign, []);
      assert.deepEqual(problems, []);
    });
  });
}
