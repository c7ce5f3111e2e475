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

export class SitesLayer {
  private readonly group = L.layerGroup();

  constructor(private readonly map: L.Map, private readonly onSelect: (site: Site) => void) {}

  render(views: SiteView[]): void {
    this.group.clearLayers();
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
    }
  }

  show(visible: boolean): void {
    if (visible && !this.map.hasLayer(this.group)) this.group.addTo(this.map);
    if (!visible && this.map.hasLayer(this.group)) this.group.remove();
  }
}
