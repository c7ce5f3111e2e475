import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { buildApp, type OpenCity } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { CHROMIUM, CHROMIUM_ARGS, requireChromium, skipWithoutChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/free-port.js';

/**
 * `/docs` in real headless Chromium over plain HTTP under a name other than localhost (which the
 * browser does not treat as a secure origin): the page must draw the interfaces, ask for nothing
 * over https and log no error (no blocked script, no Content-Security-Policy violation).
 */

const NAME = 'opencity.test';


describe('API documents in a browser', { skip: skipWithoutChromium(), timeout: 120_000 }, () => {
  let platform: OpenCity;
  let browser: Browser;
  let base: string;

  before(async () => {
    requireChromium();
    const port = await freePort();
    base = `http://${NAME}:${port}`;
    platform = await buildApp({ config: testConfig({ databaseUrl: 'sqlite::memory:', publicUrl: base }) });
    await platform.app.listen({ port, host: '127.0.0.1' });
    // The name resolves to the loopback server and nothing else: the test never leaves the machine.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${NAME} 127.0.0.1, EXCLUDE localhost`] });
  });

  after(async () => {
    await browser?.close();
    await platform?.app.close();
  });

  for (const host of [NAME, '127.0.0.1', 'localhost']) {
    it(`draws the interfaces over plain HTTP at ${host}, with no console error`, async () => {
      const url = base.replace(NAME, host);
      const page = await (await browser.newContext()).newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} (${r.failure()?.errorText})`));
      page.on('request', (r) => requests.push(r.url()));
      const response = await page.goto(`${url}/docs`);
      assert.equal(response?.status(), 200);
      assert.doesNotMatch(response.headers()['content-security-policy'] ?? '', /upgrade-insecure-requests/);
      // Swagger UI draws one section per tag once it has read /docs/json.
      await page.waitForSelector('.opblock-tag-section');
      assert.ok(await page.locator('.opblock-tag-section').count() >= 5, 'one section per interface');
      assert.deepEqual(requests.filter((r) => r.startsWith('https:')), []);
      assert.deepEqual(problems, []);
      await page.context().close();
    });
  }
});
