import { type Api, ApiError, isAbort } from './api';
import { h } from './dom';
import {
  assetName, formatDateTime, formatValue, isBoolean, isNumeric, isOnline, nonEmpty, timeAgo, toEpochMs, typeLabel,
} from './format';
import type { Comparison } from './comparison';
import { type Chartable, HistoryView } from './history';
import type { TimeRange } from './time-range';
import { updatePanelValues } from './live/panel';
import type { LiveChange } from './live/stream';
import { notify } from './notify';
import { colourClass } from './palette';
import type { Asset, AssetContext, AssetData, FeatureProperties } from './types';
import { unitOf } from './units';

/** The asset panel: identity, position, current values with units, and the history chart. */

/** Attributes shown elsewhere in the panel (or internal to the platform) rather than as values. */
const HIDDEN = new Set(['timeinstant', 'location', 'position', 'name', 'datasource', 'access:scope']);

export interface PanelHandlers {
  onClose(): void;
  onLocate(lat: number, lon: number): void;
  /** The charted attribute or range changed. */
  onHistory(): void;
}

/** The chart's attribute and range to open with (from a shared address). */
export interface HistoryWish {
  attr: string | null;
  range: TimeRange | null;
}

/** What is known of an asset before its records arrive (from a map point or a search result). */
export interface AssetHint {
  id: string;
  type?: string;
  properties?: Partial<FeatureProperties>;
  asset?: Asset;
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function facts(rows: [string, string | null][], testId?: string): HTMLElement {
  return h('dl', { class: 'facts', 'data-testid': testId },
    ...rows.filter(([, v]) => v !== null).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
}

export class AssetPanel {
  private opener: HTMLElement | null = null;
  private loading: AbortController | null = null;
  private history: HistoryView | null = null;
  private current: string | null = null;
  private wish: HistoryWish = { attr: null, range: null };
  private names: string[] = [];
  private liveChart: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly root: HTMLElement, private readonly api: Api, private readonly comparison: Comparison, private readonly handlers: PanelHandlers) {
    // Escape closes the panel wherever focus is; the search box stops it first while its list is open.
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && this.current && !ev.defaultPrevented) this.close();
    });
  }

  get openId(): string | null {
    return this.current;
  }

  /** Names of the open asset's current values. */
  get attributeNames(): string[] {
    return this.names;
  }

  /** The charted attribute and range, when a chart is shown. */
  get chartView(): HistoryWish {
    // While the asset loads, the chart it will open with.
    return this.history ? { attr: this.history.attribute, range: this.history.range } : this.current ? this.wish : { attr: null, range: null };
  }

  /** Shows the asset; resolves with its record once loaded (null when it could not be, or another was opened). */
  async open(hint: AssetHint, wish: HistoryWish = { attr: null, range: null }): Promise<Asset | null> {
    this.wish = wish;
    if (!this.current) this.opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.current = hint.id;
    this.loading?.abort();
    const ctrl = new AbortController();
    this.loading = ctrl;
    this.render(hint, null, null, true);
    this.root.hidden = false;
    document.body.classList.add('asset-open');
    this.root.querySelector<HTMLElement>('#asset-title')?.focus({ preventScroll: true });

    const [asset, data] = await Promise.allSettled([this.api.asset(hint.id, ctrl.signal), this.api.assetData(hint.id, ctrl.signal)]);
    if (ctrl.signal.aborted || this.current !== hint.id) return null;
    const a = asset.status === 'fulfilled' ? asset.value : hint.asset ?? null;
    const d = data.status === 'fulfilled' ? data.value : null;
    const failure = [asset, data].find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failure && isAbort(failure.reason)) return null;
    if (!a && !d) {
      const reason = failure?.reason;
      this.renderError(hint, reason instanceof ApiError ? reason.message : 'This asset could not be loaded.');
      return null;
    }
    this.render(hint, a ?? d, d, false);
    return a ?? d;
  }

  /** Changes of the open asset heard live: its values change in place, its chart is drawn again. */
  liveChanged(changes: LiveChange[]): void {
    if (!updatePanelValues(this.root, changes)) return;
    if (this.liveChart !== undefined) clearTimeout(this.liveChart);
    this.liveChart = setTimeout(() => this.history?.follow(), 500);
  }

  close(): void {
    if (!this.current) return;
    this.loading?.abort();
    this.history?.destroy();
    this.history = null;
    this.current = null;
    this.root.hidden = true;
    this.root.replaceChildren();
    document.body.classList.remove('asset-open');
    // The list may have been redrawn meanwhile: its row for the same item takes the opener's place.
    const key = this.opener?.dataset.key;
    const again = key ? document.querySelector<HTMLElement>(`#asset-list [data-key="${CSS.escape(key)}"]`) : null;
    const back = this.opener && document.contains(this.opener) ? this.opener : again ?? document.getElementById('map');
    back?.focus({ preventScroll: true });
    this.opener = null;
    this.handlers.onClose();
  }

  private header(hint: AssetHint, asset: Asset | null, busy: boolean, known = true): HTMLElement {
    const type = asset?.type ?? hint.type ?? hint.properties?.type ?? '';
    // An asset that could not be found has no name, type or status to show: only its id, below.
    const name = known ? assetName(hint.id, asset?.context?.name) : 'Asset not found';
    const last = asset?.context?.last_reading_at ?? hint.properties?.last_update_at ?? null;
    const online = isOnline(last);
    return h('header', { class: 'panel-head' },
      h('div', { class: 'panel-title' },
        type && known ? h('p', { class: 'eyebrow' }, h('span', { class: `dot ${colourClass(type)}`, 'aria-hidden': 'true' }), typeLabel(type)) : null,
        h('h2', { id: 'asset-title', tabindex: -1 }, name),
        busy ? h('p', { class: 'status-line' }, 'Loading…') : !known ? null : h('p', { class: 'status-line' },
          h('span', { class: `badge ${online ? 'online' : 'offline'}`, 'data-testid': 'asset-status' }, online ? 'Online' : 'Offline'),
          ` Updated ${timeAgo(last)}`)),
      h('button', {
        type: 'button', class: 'icon-button', 'aria-label': 'Close asset details', 'data-testid': 'asset-close',
        onclick: () => this.close(),
      }, h('span', { 'aria-hidden': 'true' }, '×')));
  }

  private renderError(hint: AssetHint, message: string): void {
    this.root.replaceChildren(this.header(hint, null, false, false),
      h('div', { class: 'panel-body' }, h('p', { class: 'panel-message', role: 'alert' }, message),
        h('code', { class: 'urn-text', 'data-testid': 'asset-urn' }, hint.id)));
  }

  private render(hint: AssetHint, asset: Asset | null, data: AssetData | null, busy: boolean): void {
    this.history?.destroy();
    this.history = null;
    const ctx: Partial<AssetContext> = asset?.context ?? {};
    const p = hint.properties ?? {};
    const site = nonEmpty(asset?.related?.site?.name) ?? nonEmpty(asset?.related?.site?.id) ?? nonEmpty(p.site) ?? nonEmpty(hint.id.split(':')[3]);
    const pos = ctx.position;
    const body = h('div', { class: 'panel-body' });

    body.append(h('section', { class: 'panel-section', 'aria-labelledby': 'asset-identity' },
      h('h3', { id: 'asset-identity' }, 'Identity'),
      facts([
        ['Site', site],
        ['Service', nonEmpty(ctx.service) ?? nonEmpty(p.service)],
        ['Provider', nonEmpty(ctx.provider) ?? nonEmpty(p.provider)],
        ['Group', nonEmpty(ctx.group) ?? nonEmpty(p.group)],
        ['Experiment', nonEmpty(ctx.experiment)],
        ['Last reading', ctx.last_reading_at ? formatDateTime(ctx.last_reading_at) : null],
      ], 'asset-identity'),
      h('div', { class: 'urn' },
        h('code', { class: 'urn-text', 'data-testid': 'asset-urn' }, hint.id),
        h('button', { type: 'button', class: 'link-button', onclick: () => void this.copy(hint.id) }, 'Copy URN'))));

    if (busy) body.append(h('div', { class: 'skeleton', 'aria-hidden': 'true' }));
    else body.append(...this.values(hint.id, data, toEpochMs(ctx.last_reading_at ?? p.last_update_at)));

    if (pos && typeof pos.latitude === 'number' && typeof pos.longitude === 'number') {
      const { latitude, longitude } = pos;
      body.append(h('section', { class: 'panel-section', 'aria-labelledby': 'asset-position' },
        h('div', { class: 'section-head' },
          h('h3', { id: 'asset-position' }, 'Position'),
          h('button', { type: 'button', class: 'link-button', onclick: () => this.handlers.onLocate(latitude, longitude) }, 'Show on map')),
        facts([
          ['Coordinates', `${latitude.toFixed(5)}, ${longitude.toFixed(5)}`],
          ['City', nonEmpty(pos.city)],
          ['Country', nonEmpty(pos.country) ?? nonEmpty(pos.country_code)],
        ])));
    }

    const hadFocus = this.root.contains(document.activeElement) || document.activeElement === document.body;
    this.root.replaceChildren(this.header(hint, asset, busy), body);
    if (hadFocus) this.root.querySelector<HTMLElement>('#asset-title')?.focus({ preventScroll: true });
    // `values` may have created the history view; it loads once it is in the page and has a width.
    const history = this.history as HistoryView | null;
    if (history) void history.load();
  }

  private values(assetId: string, data: AssetData | null, lastReading: number | null): HTMLElement[] {
    const section = h('section', { class: 'panel-section', 'aria-labelledby': 'asset-values' }, h('h3', { id: 'asset-values' }, 'Current values'));
    if (!data) {
      section.append(h('p', { class: 'panel-message' }, 'The current values of this asset are not available right now.'));
      return [section];
    }
    const attrs = (data.attributes ?? []).filter((a) => a && typeof a.name === 'string' && !HIDDEN.has(a.name.toLowerCase()));
    this.names = attrs.filter((a) => isNumeric(valueText(a.value)) || isBoolean(valueText(a.value))).map((a) => a.name);
    const chartable: Chartable[] = attrs
      .filter((a) => isNumeric(valueText(a.value)) || isBoolean(valueText(a.value)))
      .map((a) => ({ name: a.name, unit: unitOf(a), boolean: isBoolean(valueText(a.value)) }));
    // Battery level is rarely what one wants to see first.
    chartable.sort((a, b) => Number(a.name === 'batteryLevel') - Number(b.name === 'batteryLevel'));
    if (chartable.length) {
      this.history = new HistoryView({
        api: this.api, assetId, attrs: chartable, lastReading, attr: this.wish.attr, range: this.wish.range,
        comparison: this.comparison, onChange: () => this.handlers.onHistory(),
      });
    }

    if (!attrs.length) {
      section.append(h('p', { class: 'panel-message' }, 'This asset reports no values yet.'));
    } else {
      section.append(h('ul', { class: 'attributes', 'data-testid': 'attribute-list' }, ...attrs.map((a) => {
        const unit = unitOf(a);
        const value = valueText(a.value);
        const numeric = isNumeric(value);
        const charted = numeric || isBoolean(value);
        return h('li', { class: 'attribute', 'data-testid': 'attribute', 'data-name': a.name },
          h('span', { class: 'attribute-name' }, a.name),
          h('span', { class: 'attribute-value' }, numeric ? formatValue(value) : value || '—',
            unit && numeric ? h('span', { class: 'unit' }, ` ${unit}`) : null),
          charted && this.history ? h('button', {
            type: 'button', class: 'chip', 'aria-label': `Chart ${a.name}`,
            onclick: () => { this.history?.choose(a.name); this.history?.element.scrollIntoView({ block: 'nearest', behavior: 'smooth' }); },
          }, 'Chart') : null);
      })));
    }
    return this.history ? [section, this.history.element] : [section];
  }

  private async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
      notify('The URN was copied.', 'info', 3000);
    } catch {
      const code = this.root.querySelector('.urn-text');
      if (code) window.getSelection()?.selectAllChildren(code);
      notify('Press Ctrl+C (⌘C) to copy the selected URN.', 'info', 4000);
    }
  }
}
