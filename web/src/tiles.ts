import L from 'leaflet';
import { h } from './dom';
import { escapeHtml } from './format';
import type { TileSettings } from './settings';

/**
 * The street map under the markers: raster tiles from the platform's MAP_TILES. When the tile
 * server cannot be reached (a network without internet, a server that is down), the page falls
 * back to the outlines it ships with, by itself, and says so in a quiet note on the map.
 */

/** Failed tiles, with none drawn, after which the tile server is taken to be unreachable. */
const FAILURES_BEFORE_FALLBACK = 4;

export function addStreetMap(map: L.Map, tiles: TileSettings, onFallback: () => void): void {
  const layer = L.tileLayer(tiles.url, {
    attribution: escapeHtml(tiles.attribution),
    maxZoom: 19,
    subdomains: 'abc',
    crossOrigin: false,
    className: 'street-tiles',
  });
  let loaded = 0;
  let failed = 0;
  let given = false;
  map.getContainer().classList.add('with-tiles');
  layer.on('tileload', () => {
    loaded++;
    map.getContainer().dataset.tiles = 'drawn';
  });
  layer.on('tileerror', () => {
    failed++;
    if (given || loaded > 0 || failed < FAILURES_BEFORE_FALLBACK) return;
    given = true;
    layer.remove();
    map.getContainer().classList.remove('with-tiles');
    map.getContainer().dataset.tiles = 'fallback';
    const note = new L.Control({ position: 'bottomleft' });
    note.onAdd = () => h('div', { class: 'tiles-note', role: 'status', 'data-testid': 'tiles-fallback' }, 'Street map unavailable: outlines shown.');
    note.addTo(map);
    onFallback();
  });
  layer.addTo(map);
}
