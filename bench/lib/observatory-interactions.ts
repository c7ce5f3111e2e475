import type { Browser, Page } from 'playwright-core';

/**
 * Timed interactions with the observatory page, measured inside the page: from the event that
 * starts one (a control's `change`, seen in the capture phase) to the moment the element showing its
 * result reaches its final state (a MutationObserver), beside the requests it made (Chromium's
 * resource timing: the longest one, from its start to its last byte).
 *
 * The requests' timings are taken from a PerformanceObserver installed with the watch, not from the
 * page's resource timing buffer: Chromium keeps only the first 250 entries of a page there and then
 * drops the rest without a word, and a page opened on an asset has flown to it through several zooms
 * of street tiles, so the buffer may be full before the interaction begins and its requests would
 * go unseen (a 0 ms baseline). An entry may also come a moment after the response it times was
 * read, so the watch waits for the entries briefly once the result is drawn.
 */

export interface InteractionTiming {
  /** Ms from the change to the result drawn. */
  totalMs: number;
  /** Ms of the longest request made meanwhile; null when none was seen. */
  requestMs: number | null;
}

/** Paths of the platform's requests an interaction waits on. */
const PLATFORM_PATHS = ['/discovery/', '/datasource/'];

/**
 * Installed in the page before the interaction; kept as text so that no compiler helper leaks into
 * the page. Resolves with the timing once the target reached the attributes of `done` again.
 */
const WATCH_INTERACTION = `({ target, done, timeoutMs, paths }) => new Promise((resolve, reject) => {
  const host = document.querySelector(target);
  if (!host) { reject(new Error('no ' + target)); return; }
  let start;
  let left = false;
  const seen = [];
  const resources = new PerformanceObserver((list) => { seen.push(...list.getEntries()); });
  resources.observe({ type: 'resource' });
  const isPlatform = (name) => paths.some((p) => new URL(name, location.href).pathname.startsWith(p));
  const requests = () => {
    seen.push(...resources.takeRecords());
    return seen.filter((r) => r.startTime >= start && isPlatform(r.name));
  };
  const finished = () => Object.entries(done).every(([k, v]) => host.getAttribute(k) === v);
  // Once the result is drawn: the requests' entries, when one has come and no other for 50 ms (a second at most).
  const settle = (end) => {
    const until = performance.now() + 1000;
    let count = -1;
    const check = () => {
      const found = requests();
      if (performance.now() < until && (found.length === 0 || found.length !== count)) {
        count = found.length;
        setTimeout(check, 50);
        return;
      }
      resources.disconnect();
      resolve({ totalMs: end - start, requestMs: found.length ? Math.max(...found.map((r) => r.responseEnd - r.startTime)) : null });
    };
    check();
  };
  const observer = new MutationObserver(() => {
    if (start === undefined) return;
    if (!finished()) { left = true; return; }
    if (!left) return;
    const end = performance.now();
    observer.disconnect();
    clearTimeout(timer);
    settle(end);
  });
  const timer = setTimeout(() => {
    observer.disconnect();
    resources.disconnect();
    reject(new Error(target + ' did not reach ' + JSON.stringify(done)));
  }, timeoutMs);
  observer.observe(host, { attributes: true, subtree: true });
  document.addEventListener('change', () => { start = performance.now(); }, { capture: true, once: true });
  window.__armed = true;
})`;

/** Does `act` (which changes a control) and waits until `target` has the attributes of `done`, after having left them. */
export async function timeInteraction(page: Page, act: () => Promise<void>, target: string, done: Record<string, string>, timeoutMs = 20_000): Promise<InteractionTiming> {
  const pending = page.evaluate(`(${WATCH_INTERACTION})(${JSON.stringify({ target, done, timeoutMs, paths: PLATFORM_PATHS })})`) as Promise<InteractionTiming>;
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
