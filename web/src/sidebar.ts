import { byId, h } from './dom';
import { assetName, count, describeDuration, formatNumber, isOnline, joinKnown, onlineWindowMs, percent, typeLabel } from './format';
import { type ListItem, bindListKeys, renderList } from './list';
import { colourClass } from './palette';
import type { AssetFeature, Site } from './types';

/** The side panel's read-outs: summary line, type legend and the navigable list. */

const MAX_ROWS = 200;

export class Sidebar {
  private readonly summary = byId('summary');
  private readonly legend = byId('legend');
  private readonly list = byId('asset-list');
  private readonly title = byId('list-title');
  private readonly more = byId('list-more');

  constructor() {
    bindListKeys(this.list);
  }

  private setSummary(main: string, detail: string, note?: string): void {
    this.summary.replaceChildren(h('p', { class: 'summary-main' }, main), h('p', { class: 'summary-detail' }, detail));
    if (note) this.summary.append(h('p', { class: 'summary-note' }, note));
  }

  showSites(sites: Site[], onSite: (s: Site) => void): void {
    this.summary.dataset.mode = 'sites';
    this.summary.dataset.count = String(sites.length);
    const assets = sites.reduce((n, s) => n + (s.attributes?.assets ?? 0), 0);
    const online = sites.reduce((n, s) => n + (s.attributes?.online ?? 0), 0);
    this.setSummary(`${count(sites.length, 'site')} · ${count(assets, 'asset')}`,
      `${percent(online, assets)}% online in the last ${describeDuration(onlineWindowMs())}`,
      'Zoom in on a site to see its assets.');
    this.legend.replaceChildren();
    this.title.textContent = 'Sites';
    const sorted = [...sites].sort((a, b) => (b.attributes?.assets ?? 0) - (a.attributes?.assets ?? 0));
    renderList(this.list, sorted.map((s): ListItem => ({
      key: s.id,
      primary: s.context.name,
      secondary: s.attributes?.assets
        ? `${count(s.attributes.assets, 'asset')} · ${percent(s.attributes.online ?? 0, s.attributes.assets)}% online`
        : 'No assets yet',
      testId: 'site-item',
      onSelect: () => onSite(s),
    })));
    this.more.hidden = true;
  }

  showLoading(): void {
    this.summary.classList.add('loading');
    this.summary.dataset.mode = 'loading';
  }

  showAssets(opts: {
    shown: AssetFeature[];
    /** Features in view matching every filter but the type, for the legend's counts. */
    forLegend: AssetFeature[];
    loaded: number;
    /** All assets of the area matching the filters sent to the platform, when it says. */
    total: number | null;
    truncated: boolean;
    filtered: boolean;
    selectedType: string;
    onType: (type: string) => void;
    onAsset: (f: AssetFeature) => void;
  }): void {
    this.summary.classList.remove('loading');
    this.summary.dataset.mode = 'assets';
    this.summary.dataset.count = String(opts.shown.length);
    const now = Date.now();
    const online = opts.shown.filter((f) => isOnline(f.properties.last_update_at, now)).length;
    const main = `${count(opts.shown.length, 'asset')} in view`;
    const detail = opts.shown.length
      ? `${percent(online, opts.shown.length)}% online${opts.filtered ? ` · ${formatNumber(opts.loaded)} before filters` : ''}`
      : opts.loaded ? 'None match the filters here.' : 'No assets in this area.';
    const note = !opts.truncated ? undefined : opts.total !== null
      ? `The first ${formatNumber(opts.loaded)} of ${count(opts.total, 'asset')} here are loaded. Zoom in to see them all.`
      : 'Only part of this area is loaded. Zoom in to see every asset.';
    this.setSummary(main, detail, note);

    const byType = new Map<string, number>();
    for (const f of opts.forLegend) byType.set(f.properties.type, (byType.get(f.properties.type) ?? 0) + 1);
    const types = [...byType.entries()].sort((a, b) => b[1] - a[1]);
    this.legend.replaceChildren(...types.map(([type, n]) => {
      const pressed = opts.selectedType.toLowerCase() === type.toLowerCase();
      return h('li', {}, h('button', {
        type: 'button', class: 'legend-item', 'aria-pressed': String(pressed), 'data-testid': 'legend-item', 'data-type': type,
        title: pressed ? 'Show every type' : `Show only ${typeLabel(type)}`,
        onclick: () => opts.onType(pressed ? '' : type),
      }, h('span', { class: `dot ${colourClass(type)}`, 'aria-hidden': 'true' }), typeLabel(type), h('span', { class: 'legend-count' }, formatNumber(n))));
    }));

    this.title.textContent = 'Assets in view';
    const sorted = [...opts.shown].sort((a, b) => a.properties.id.localeCompare(b.properties.id, undefined, { numeric: true }));
    renderList(this.list, sorted.slice(0, MAX_ROWS).map((f): ListItem => ({
      key: f.properties.id,
      primary: assetName(f.properties.id),
      secondary: joinKnown([typeLabel(f.properties.type), f.properties.service, f.properties.provider]),
      badge: isOnline(f.properties.last_update_at, now) ? undefined : 'offline',
      dotClass: colourClass(f.properties.type),
      testId: 'asset-item',
      onSelect: () => opts.onAsset(f),
    })));
    this.more.hidden = sorted.length <= MAX_ROWS;
    this.more.textContent = `${formatNumber(sorted.length - MAX_ROWS)} more on the map. Zoom in or filter to list them.`;
  }
}
