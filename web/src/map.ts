import L from 'leaflet';
import { AssetsLayer } from './assets-layer';
import { addBaseMap, type BaseMap } from './basemap';
import { debounce } from './dom';
import type { TileSettings } from './settings';
import { SitesLayer } from './sites-layer';
import { addStreetMap } from './tiles';
import type { AssetFeature, Site } from './types';

/** From this zoom on, the map shows the assets of the visible area instead of one marker per site. */
export const ASSET_ZOOM = 10;
export const SITE_ZOOM = 13;

export type Ring = [number, number][];

export interface MapHandlers {
  onSite(site: Site): void;
  onAsset(feature: AssetFeature): void;
  onView(zoom: number): void;
  onError(message: string): void;
}

const clamp = (v: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, v));

export class ObservatoryMap {
  readonly map: L.Map;
  readonly sites: SitesLayer;
  readonly assets: AssetsLayer;
  private baseMap: BaseMap | null = null;
  private refined = false;

  constructor(el: HTMLElement, handlers: MapHandlers, tiles: TileSettings | null) {
    this.map = L.map(el, {
      center: [48, 10],
      zoom: 4,
      minZoom: 2,
      maxZoom: 18,
      zoomSnap: 0.5,
      worldCopyJump: false,
      maxBounds: [[-85, -240], [85, 240]],
      maxBoundsViscosity: 0.8,
      attributionControl: false,
      keyboard: true,
    });
    const attribution = L.control.attribution({ prefix: false, position: 'bottomright' }).addTo(this.map);
    const outlines = (): void => {
      attribution.addAttribution('Outlines: Natural Earth');
      const base = addBaseMap(this.map, handlers.onError);
      this.baseMap = base;
      if (this.refined) base.refine();
    };
    L.control.scale({ position: 'bottomright', imperial: false }).addTo(this.map);
    this.map.getContainer().setAttribute('aria-roledescription', 'map');

    // With a street map the outlines are only the fallback: they are loaded when the tiles cannot be.
    if (tiles) addStreetMap(this.map, tiles, outlines);
    else outlines();
    this.sites = new SitesLayer(this.map, handlers.onSite);
    this.assets = new AssetsLayer(this.map, handlers.onAsset);

    const changed = debounce(() => handlers.onView(this.map.getZoom()), 350);
    this.map.on('moveend', changed);
  }

  /** Finer outlines once the first view is up: loading them first would delay it. */
  refineOutlines(): void {
    this.refined = true;
    this.baseMap?.refine();
  }

  get inAssetView(): boolean {
    return this.map.getZoom() >= ASSET_ZOOM;
  }

  /** The visible area as a closed ring of [lon, lat] pairs, counter-clockwise as GeoJSON prefers. */
  viewRing(): Ring {
    const b = this.map.getBounds();
    const w = clamp(b.getWest(), -180, 180);
    const e = clamp(b.getEast(), -180, 180);
    const s = clamp(b.getSouth(), -85, 85);
    const n = clamp(b.getNorth(), -85, 85);
    const r = (v: number): number => Math.round(v * 1e6) / 1e6;
    return [[r(w), r(s)], [r(e), r(s)], [r(e), r(n)], [r(w), r(n)], [r(w), r(s)]];
  }

  fitSites(sites: Site[]): void {
    const points = sites
      .map((s) => s.context.position)
      .filter((p) => typeof p?.latitude === 'number' && typeof p?.longitude === 'number')
      .map((p) => L.latLng(p.latitude as number, p.longitude as number));
    if (points.length > 1) this.map.fitBounds(L.latLngBounds(points), { padding: [60, 60], maxZoom: 6, animate: false });
    else if (points[0]) this.map.setView(points[0], 6, { animate: false });
  }

  /** The map's centre and zoom (for the address). */
  get centre(): { lat: number; lon: number; zoom: number } {
    const c = this.map.getCenter();
    return { lat: c.lat, lon: c.lng, zoom: this.map.getZoom() };
  }

  setCentre(lat: number, lon: number, zoom: number): void {
    this.map.setView([lat, lon], zoom, { animate: false });
  }

  /** Brings all these [lat, lon] points into view. */
  fitPoints(points: [number, number][]): void {
    if (points.length === 1) this.map.setView(points[0]!, Math.max(this.map.getZoom(), 15), { animate: false });
    else if (points.length > 1) this.map.fitBounds(L.latLngBounds(points), { padding: [40, 40], maxZoom: 17, animate: false });
  }

  /** Flies to a point; with `cover` (a panel over the map) the point lands in the middle of what stays visible. */
  flyTo(lat: number, lon: number, zoom: number, cover: HTMLElement | null = null): void {
    const target = Math.max(zoom, this.map.getZoom());
    const { right, bottom } = this.covered(cover);
    const centre = this.map.unproject(this.map.project([lat, lon], target).add([right / 2, bottom / 2]), target);
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) this.map.setView(centre, target);
    else this.map.flyTo(centre, target, { duration: 0.8 });
  }

  /** How much of the map's right side or bottom an element lying over it hides. */
  private covered(cover: HTMLElement | null): { right: number; bottom: number } {
    if (!cover || cover.hidden) return { right: 0, bottom: 0 };
    const map = this.map.getContainer().getBoundingClientRect();
    const over = cover.getBoundingClientRect();
    // A panel on the right covers the map's right edge; a bottom sheet covers its bottom.
    const sideways = over.top - map.top < map.height / 3;
    return sideways ? { right: Math.max(0, map.right - over.left), bottom: 0 } : { right: 0, bottom: Math.max(0, map.bottom - over.top) };
  }

  /** Pans just enough for a point to be seen beside `cover`, an element lying over the map (the asset panel). */
  reveal(lat: number, lon: number, cover: HTMLElement | null): void {
    const { right, bottom } = this.covered(cover);
    this.map.panInside([lat, lon], { paddingTopLeft: [40, 40], paddingBottomRight: [right + 40, bottom + 40] });
  }

  /** Re-measures after the layout around the map changed (panels opening on small screens). */
  resize(): void {
    this.map.invalidateSize({ pan: false });
  }
}
