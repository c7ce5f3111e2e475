import L from 'leaflet';
import { h } from './dom';
import { count, percent } from './format';
import { compactCount, onlineRing } from './ring';
import type { Site } from './types';

/** One marker per site: asset count in the middle, online share as the green arc, name beneath. */

export interface SiteView {
  site: Site;
  /** Assets matching the current filters, when the filters can be answered per site. */
  count: number;
  online: number;
  dimmed: boolean;
}

export function siteLabel(v: SiteView): string {
  if (v.count === 0) return `${v.site.context.name}: no assets yet`;
  return `${v.site.context.name}: ${count(v.count, 'asset')}, ${percent(v.online, v.count)}% online`;
}

function pin(v: SiteView): HTMLElement {
  return h('div', { class: `site-pin${v.dimmed ? ' dimmed' : ''}${v.count === 0 ? ' empty' : ''}`, 'data-testid': 'site-marker', 'data-site': v.site.id },
    onlineRing(v.count ? v.online / v.count : 0),
    h('span', { class: 'site-count' }, compactCount(v.count)),
    h('span', { class: 'site-name' }, v.site.context.name));
}

/** Markers closer than this (px) would print their names over each other. */
const CROWDED_PX = 56;

export class SitesLayer {
  private readonly group = L.layerGroup();
  private placed: { marker: L.Marker; view: SiteView }[] = [];

  constructor(private readonly map: L.Map, private readonly onSelect: (site: Site) => void) {
    map.on('zoomend', () => this.declutter());
  }

  /**
   * Sites close together on screen (the experimenters site sits in Santander) keep only the
   * biggest one's name; the others show theirs on hover or focus.
   */
  private declutter(): void {
    if (!this.map.hasLayer(this.group)) return;
    const shown: L.Point[] = [];
    const ranked = [...this.placed].sort((a, b) => b.view.count - a.view.count);
    for (const { marker } of ranked) {
      const at = this.map.latLngToContainerPoint(marker.getLatLng());
      const crowded = shown.some((p) => p.distanceTo(at) < CROWDED_PX);
      marker.getElement()?.querySelector('.site-pin')?.classList.toggle('crowded', crowded);
      if (!crowded) shown.push(at);
    }
  }

  render(views: SiteView[]): void {
    this.group.clearLayers();
    this.placed = [];
    for (const v of views) {
      const { latitude, longitude } = v.site.context.position ?? {};
      if (typeof latitude !== 'number' || typeof longitude !== 'number') continue;
      const marker = L.marker([latitude, longitude], {
        icon: L.divIcon({ className: 'site-icon', html: pin(v), iconSize: [44, 44], iconAnchor: [22, 22] }),
        keyboard: true,
        riseOnHover: true,
        zIndexOffset: v.dimmed ? 0 : 1000 + Math.min(v.count, 10_000),
      });
      marker.on('add', () => {
        const el = marker.getElement();
        el?.setAttribute('role', 'button');
        el?.setAttribute('aria-label', siteLabel(v));
      });
      marker.on('click', () => this.onSelect(v.site));
      this.group.addLayer(marker);
      this.placed.push({ marker, view: v });
    }
    this.declutter();
  }

  show(visible: boolean): void {
    if (visible && !this.map.hasLayer(this.group)) {
      this.group.addTo(this.map);
      this.declutter();
    }
    if (!visible && this.map.hasLayer(this.group)) this.group.remove();
  }
}
