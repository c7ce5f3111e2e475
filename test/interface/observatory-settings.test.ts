import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pageSecurityPolicy } from '../../src/http/web.js';
import { describeEachStore } from '../helpers/platform.js';

const TILES = 'http://127.0.0.1:8181/tiles/{z}/{x}/{y}.png';

describeEachStore('observatory settings, with tiles', (platform) => {
  it('tells the page the online window, the tiles and the datasource limits', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/observatory/settings' });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.deepEqual(res.json(), {
      onlineWindowMs: 90 * 60_000,
      tiles: { url: TILES, attribution: 'Local tiles' },
      maxReadingsPerPage: 1000,
      aggregationPeriods: ['minute', 'hour', 'day'],
    });
  });

  it('allows images from exactly the tile host in the page\'s policy', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/' });
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /img-src 'self' data: blob: http:\/\/127\.0\.0\.1:8181;/);
    assert.match(csp, /connect-src 'self';/);
  });

  it('refuses other methods on the settings', async () => {
    const res = await platform().app.inject({ method: 'POST', url: '/observatory/settings', payload: {} });
    assert.ok(res.statusCode === 404 || res.statusCode === 405, String(res.statusCode));
    assert.notEqual(res.statusCode, 500);
  });
}, { onlineWindowMs: 90 * 60_000, mapTiles: TILES, mapTilesAttribution: 'Local tiles' });

describeEachStore('observatory settings, without tiles', (platform) => {
  it('says there is no street map and allows no other image host', async () => {
    const res = await platform().app.inject({ method: 'GET', url: '/observatory/settings' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().tiles, null);
    const page = await platform().app.inject({ method: 'GET', url: '/' });
    assert.match(String(page.headers['content-security-policy']), /img-src 'self' data: blob:;/);
  });
}, { mapTiles: null });

it('names a {s} subdomain template as a wildcard of its host only', () => {
  assert.match(pageSecurityPolicy('https://{s}.tile.example.org/{z}/{x}/{y}.png'), /img-src 'self' data: blob: https:\/\/\*\.tile\.example\.org;/);
});
