import type { Browser, Page } from 'playwright-core';

/**
 * Timed interactions with the observatory page, measured inside the page: from the event that
 * starts one (a control's `change`, seen in the capture phase) to the moment the element showing its
 * result reaches its final state (a MutationObserver), beside the requests it made (Chromium's
 * resource timing: the longest one, from its start to its last byte).
 */

export interface InteractionTiming {
  /** Ms from the change to the result drawn. */
  totalMs: number;
  /** Ms of the longest request made meanwhile (0 when none). */
  requestMs: number;
}

/**
 * Installed in the page before the interaction; kept as text so that no compiler helper leaks into
 * the page. Resolves with the timing once the target reached the attributes of `done` again.
 */
const WATCH_INTERACTION = `({ target, done, timeoutMs }) => new Promise((resolve, reject) => {
  const host = document.querySelector(target);
  if (!host) { reject(new Error('no ' + target)); return; }
  let start;
  let left = false;
  const finished = () => Object.entries(done).every(([k, v]) => host.getAttribute(k) === v);
  const observer = new MutationObserver(() => {
    if (start === undefined) return;
    if (!finished()) { left = true; return; }
    if (!left) return;
    const end = performance.now();
    observer.disconnect();
    clearTimeout(timer);
    const requests = performance.getEntriesByType('resource')
      .filter((r) => r.startTime >= start && (r.name.includes('/discovery/') || r.name.includes('/datasource/')))
      .map((r) => r.responseEnd - r.startTime);
    resolve({ totalMs: end - start, requestMs: Math.max(0, ...requests) });
  });
  const timer = setTimeout(() => { observer.disconnect(); reject(new Error(target + ' did not reach ' + JSON.stringify(done))); }, timeoutMs);
  observer.observe(host, { attributes: true, subtree: true });
  document.addEventListener('change', () => { start = performance.now(); }, { capture: true, once: true });
  window.__armed = true;
})`;

/** Does `act` (which changes a control) and waits until `target` has the attributes of `done`, after having left them. */
export async function timeInteraction(page: Page, act: () => Promise<void>, target: string, done: Record<string, string>, timeoutMs = 20_000): Promise<InteractionTiming> {
  const pending = page.evaluate(`(${WATCH_INTERACTION})(${JSON.stringify({ target, done, timeoutMs })})`) as Promise<InteractionTiming>;
  await page.waitForFunction(() => (window as unknown as { __armed?: boolean }).__armed === true);
  await page.evaluate(() => { (window as unknown as { __armed?: boolean }).__armed = false; });
  await act();
  return pending;
}

/** A fresh context on `url`, ready. */
export async function openPage(browser: Browser, url: string, viewport: { width: number; height: number }): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return { page, close: () => context.close() };
}
