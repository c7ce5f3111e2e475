import L from 'leaflet';
import 'leaflet.markercluster';
import { h } from './dom';
import { assetName, isOnline, joinKnown, nonEmpty, percent, typeLabel } from './format';
import { colourClass } from './palette';
import { compactCount, onlineRing } from './ring';
import type { AssetFeature } from './types';

/**
 * Asset points of the visible area, coloured by type, hollow when offline, clustered when dense.
 * Markers are kept between searches and only the difference is applied, so panning does not flicker.
 */

interface Entry {
  marker: L.Marker;
  feature: AssetFeature;
  online: boolean;
  dot: HTMLElement;
}

function entryKey(f: AssetFeature): string {
  // The position too: a marker whose asset moved (live updates) is drawn again where it is now.
  return `${f.properties.type}|${f.properties.last_update_at ?? ''}|${f.geometry?.coordinates?.join(',') ?? ''}`;
}

export function assetLabel(f: AssetFeature, online: boolean): string {
  const p = f.properties;
  const by = nonEmpty(p.provider);
  return joinKnown([assetName(p.id), typeLabel(p.type), nonEmpty(p.service) && (by ? `${p.service} by ${by}` : p.service), online ? 'online' : 'offline'], ', ');
}

export class AssetsLayer {
  private readonly entries = new Map<string, Entry>();
  private readonly online = new WeakMap<L.Marker, boolean>();
  private readonly cluster: L.MarkerClusterGroup;
  private readonly selection = L.layerGroup();

  constructor(private readonly map: L.Map, private readonly onSelect: (f: AssetFeature) => void) {
    this.cluster = L.markerClusterGroup({
      showCoverageOnHover: false,
      maxClusterRadius: 44,
      disableClusteringAtZoom: 17,
      spiderfyOnMaxZoom: true,
      chunkedLoading: true,
      iconCreateFunction: (c) => this.clusterIcon(c),
    });
    this.selection.addTo(map);
  }

  private clusterIcon(cluster: L.MarkerCluster): L.DivIcon {
    const children = cluster.getAllChildMarkers();
    const online = children.filter((m) => this.online.get(m)).length;
    const n = children.length;
    const size = n < 50 ? 'small' : n < 500 ? 'medium' : 'large';
    const el = h('div', {
      class: `cluster-pin ${size}`, 'data-testid': 'asset-cluster', 'data-count': n,
      title: `${n} assets, ${percent(online, n)}% online`,
    }, onlineRing(n ? online / n : 0), h('span', { class: 'cluster-count' }, compactCount(n)));
    const px = size === 'small' ? 36 : size === 'medium' ? 42 : 48;
    return L.divIcon({ className: 'cluster-icon', html: el, iconSize: [px, px] });
  }

  private colours: Map<string, string> | null = null;

  private dotClass(f: AssetFeature, online: boolean): string {
    return `asset-dot ${this.colours?.get(f.properties.id) ?? colourClass(f.properties.type)}${online ? '' : ' offline'}`;
  }

  private marker(f: AssetFeature, online: boolean): { marker: L.Marker; dot: HTMLElement } | null {
    const [lon = NaN, lat = NaN] = f.geometry?.type === 'Point' ? f.geometry.coordinates : [];
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) return null;
    const dot = h('span', {
      class: this.dotClass(f, online),
      'data-testid': 'asset-point', 'data-asset-id': f.properties.id,
    });
    const marker = L.marker([lat, lon], {
      icon: L.divIcon({ className: 'asset-icon', html: dot, iconSize: [18, 18] }),
      keyboard: true,
      title: assetName(f.properties.id),
    });
    marker.on('add', () => {
      const el = marker.getElement();
      el?.setAttribute('role', 'button');
      el?.setAttribute('aria-label', assetLabel(f, online));
    });
    marker.on('click', () => this.onSelect(f));
    this.online.set(marker, online);
    return { marker, dot };
  }

  /** Shows exactly these features. */
  render(features: AssetFeature[], now = Date.now()): void {
    const wanted = new Map(features.map((f) => [f.properties.id, f]));
    const stale: L.Marker[] = [];
    for (const [id, entry] of this.entries) {
      const next = wanted.get(id);
      if (!next || entryKey(next) !== entryKey(entry.feature) || isOnline(next.properties.last_update_at, now) !== entry.online) {
        stale.push(entry.marker);
        this.entries.delete(id);
      }
    }
    if (stale.length) this.cluster.removeLayers(stale);
    const fresh: L.Marker[] = [];
    for (const [id, f] of wanted) {
      if (this.entries.has(id)) continue;
      const online = isOnline(f.properties.last_update_at, now);
      const made = this.marker(f, online);
      if (!made) continue;
      this.entries.set(id, { marker: made.marker, feature: f, online, dot: made.dot });
      fresh.push(made.marker);
    }
    if (fresh.length) this.cluster.addLayers(fresh);
  }

  /** Colours the markers by these classes (by asset id), or by type again with null; markers are kept, only their class changes. */
  recolour(colours: Map<string, string> | null): void {
    this.colours = colours;
    for (const entry of this.entries.values()) {
      const next = this.dotClass(entry.feature, entry.online);
      if (entry.dot.className !== next) entry.dot.className = next;
    }
  }

  show(visible: boolean): void {
    if (visible && !this.map.hasLayer(this.cluster)) this.cluster.addTo(this.map);
    if (!visible && this.map.hasLayer(this.cluster)) this.cluster.remove();
  }

  clear(): void {
    this.cluster.clearLayers();
    this.entries.clear();
  }

  /** A ring around the asset whose panel is open, with its own dot: it shows even when filtered out or clustered. */
  select(lat: number | null, lon: number | null, type?: string): void {
    this.selection.clearLayers();
    if (lat === null || lon === null) return;
    const ring = h('span', { class: 'selection-ring', 'data-testid': 'asset-selection' },
      type ? h('span', { class: `asset-dot ${colourClass(type)}` }) : null);
    L.marker([lat, lon], {
      icon: L.divIcon({ className: 'selection-icon', html: ring, iconSize: [40, 40] }),
      interactive: false,
      keyboard: false,
      zIndexOffset: 5000,
    }).addTo(this.selection);
  }
}
