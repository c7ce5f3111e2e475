import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { isTileTemplate, tileSource } from '../../src/domain/map-tiles.js';

describe('map tile templates', () => {
  it('accepts http(s) templates with {z}, {x} and {y}', () => {
    assert.equal(isTileTemplate('https://tile.openstreetmap.org/{z}/{x}/{y}.png'), true);
    assert.equal(isTileTemplate('http://127.0.0.1:8181/tiles/{z}/{x}/{y}.png'), true);
    assert.equal(isTileTemplate('https://{s}.tile.example.org/{z}/{x}/{y}.png?key=abc'), true);
  });

  it('refuses other schemes, hosts with a path injection, and templates missing a coordinate', () => {
    for (const bad of ['ftp://x.org/{z}/{x}/{y}.png', 'https://x.org/{z}/{x}.png', 'https://x.org', "https://x.org;script-src *'/{z}/{x}/{y}", 'https://a b.org/{z}/{x}/{y}']) {
      assert.equal(isTileTemplate(bad), false, bad);
    }
  });

  it('names exactly the tile host for the Content-Security-Policy', () => {
    assert.equal(tileSource('https://tile.openstreetmap.org/{z}/{x}/{y}.png'), 'https://tile.openstreetmap.org');
    assert.equal(tileSource('http://127.0.0.1:8181/t/{z}/{x}/{y}.png'), 'http://127.0.0.1:8181');
    assert.equal(tileSource('https://{s}.tile.example.org/{z}/{x}/{y}.png'), 'https://*.tile.example.org');
  });

  it('defaults to OpenStreetMap, takes none, and refuses a broken template at start', () => {
    const osm = loadConfig({});
    assert.equal(osm.mapTiles, 'https://tile.openstreetmap.org/{z}/{x}/{y}.png');
    assert.match(osm.mapTilesAttribution, /OpenStreetMap contributors/);
    assert.equal(loadConfig({ MAP_TILES: 'none' }).mapTiles, null);
    assert.throws(() => loadConfig({ MAP_TILES: 'https://x.org/tiles.png' }), /MAP_TILES/);
    assert.throws(() => loadConfig({ MAP_TILES: 'javascript:alert(1)' }), /MAP_TILES/);
  });
});
