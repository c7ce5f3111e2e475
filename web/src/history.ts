import { type Api, ApiError, isAbort } from './api';
import { Chart, type ChartLine, LINE_COLOURS } from './chart';
import { chartCsv, csvFilename, download } from './chart-csv';
import { type Compared, type Comparison, chartPlan } from './comparison';
import { h } from './dom';
import { assetName, formatNumber } from './format';
import { notify } from './notify';
import { type Series, loadSeries } from './series';
import { RangePicker, type TimeRange, firstPreset, presetRange } from './time-range';
import { MAX_COMPARED } from './view-state';

/**
 * The "History" section of the asset panel: attribute and time range over a chart, the assets
 * compared with this one, and downloads of what the chart shows and of the whole history.
 */

export interface Chartable {
  name: string;
  unit: string;
  /** true/false readings, charted as a step between 0 and 1. */
  boolean: boolean;
}

export interface HistoryOptions {
  api: Api;
  assetId: string;
  attrs: Chartable[];
  /** Epoch ms of the asset's last reading: picks the first range when none is asked for. */
  lastReading: number | null;
  attr: string | null;
  range: TimeRange | null;
  comparison: Comparison;
  /** The attribute or range changed (for the address). */
  onChange(): void;
}

let uid = 0;

const RESOLUTION_WORDS: Record<Series['resolution'], string> = { raw: 'readings', minute: 'means per minute', hour: 'hourly means', day: 'daily means' };

/** A sentence for screen readers, since the chart itself is a canvas. */
function describeLine(series: Series, line: ChartLine): string {
  const values = series.y.filter((v): v is number => v !== null);
  if (values.length === 0) return `${line.label}: no readings.`;
  if (line.boolean) {
    const on = values.filter((v) => v === 1).length;
    return `${line.label}: ${values.length} readings, true in ${Math.round((on / values.length) * 100)}% of them, latest ${values[values.length - 1] === 1 ? 'true' : 'false'}.`;
  }
  const unit = line.unit ? ` ${line.unit}` : '';
  return `${line.label}: ${values.length} ${RESOLUTION_WORDS[series.resolution]}, lowest ${formatNumber(Math.min(...values))}${unit}, `
    + `highest ${formatNumber(Math.max(...values))}${unit}, latest ${formatNumber(values[values.length - 1]!)}${unit}.`;
}

export class HistoryView {
  readonly element: HTMLElement;
  private readonly chart: Chart;
  private readonly chartHost: HTMLElement;
  private readonly status: HTMLElement;
  private readonly attrSelect: HTMLSelectElement;
  private readonly picker: RangePicker;
  private readonly compareList: HTMLElement;
  private readonly compareButton: HTMLButtonElement;
  private readonly exportLink: HTMLAnchorElement;
  private attr: Chartable;
  /** The range picked (before any zoom on the chart): a double click comes back to it. */
  private picked: TimeRange;
  private loading: AbortController | null = null;
  private lines: ChartLine[] = [];
  private readonly stopListening: () => void;

  constructor(private readonly o: HistoryOptions) {
    this.attr = o.attrs.find((a) => a.name === o.attr) ?? o.attrs[0]!;
    this.picked = o.range ?? presetRange(firstPreset(o.lastReading));
    const id = `history-${++uid}`;
    this.attrSelect = h('select', { id: `${id}-attr`, 'data-testid': 'chart-attribute' },
      ...o.attrs.map((a) => h('option', { value: a.name }, a.name)));
    this.attrSelect.value = this.attr.name;
    this.attrSelect.addEventListener('change', () => this.choose(this.attrSelect.value));
    this.picker = new RangePicker(this.picked, (range) => {
      this.picked = range;
      this.changed();
    });

    this.status = h('p', { class: 'chart-status', role: 'status', 'data-testid': 'chart-status' });
    this.chartHost = h('div', { class: 'chart', role: 'img', 'aria-label': 'Chart loading', 'data-testid': 'asset-chart', 'data-state': 'loading', 'data-points': 0 });
    this.chart = new Chart(this.chartHost);
    this.compareList = h('ul', { class: 'compare-list', 'data-testid': 'compare-list', 'aria-label': 'Compared with' });
    this.compareButton = h('button', {
      type: 'button', class: 'chip', 'data-testid': 'compare-add',
      onclick: () => this.pin(),
    }, 'Add to comparison');
    this.exportLink = h('a', {
      class: 'link-button', 'data-testid': 'history-export', download: '',
      onclick: (ev: Event) => { ev.preventDefault(); void this.exportWhole(); },
    }, 'Whole history (CSV)');
    this.element = h('section', { class: 'panel-section', 'aria-labelledby': `${id}-title` },
      h('h3', { id: `${id}-title` }, 'History'),
      h('div', { class: 'chart-controls' },
        h('div', { class: 'field inline' }, h('label', { for: `${id}-attr` }, 'Attribute'), this.attrSelect),
        this.picker.element),
      this.chartHost,
      this.status,
      h('p', { class: 'hint chart-hint' }, 'Drag across the chart to zoom in; double-click to go back.'),
      h('div', { class: 'chart-actions' },
        this.compareButton,
        h('button', { type: 'button', class: 'chip', 'data-testid': 'chart-csv', onclick: () => this.downloadShown() }, 'Download CSV'),
        this.exportLink),
      this.compareList);
    this.stopListening = o.comparison.onChange(() => {
      this.showComparison();
      void this.load();
    });
    this.showComparison();
    this.setExportHref();
  }

  get attribute(): string {
    return this.attr.name;
  }

  get range(): TimeRange {
    return this.picker.value;
  }

  /** Charts another attribute; called by the attribute list too. */
  choose(name: string): void {
    const next = this.o.attrs.find((a) => a.name === name);
    if (!next) return;
    this.attr = next;
    this.attrSelect.value = name;
    this.setExportHref();
    this.changed();
  }

  private changed(): void {
    this.o.onChange();
    this.showComparison();
    void this.load();
  }

  /** New readings arrived: a preset range moves on to now (a chosen one stays put), and the chart is drawn again. */
  follow(): void {
    const range = this.picker.value;
    if (range.preset) this.picker.set(presetRange(range.preset));
    void this.load();
  }

  private zoom(from: number, to: number): void {
    this.picker.set({ preset: null, from, to });
    this.o.onChange();
    void this.load();
  }

  private reset(): void {
    this.picker.set(this.picked.preset ? presetRange(this.picked.preset) : this.picked);
    this.o.onChange();
    void this.load();
  }

  private primary(): Compared {
    const label = `${assetName(this.o.assetId)} · ${this.attr.name}`;
    return { id: this.o.assetId, attr: this.attr.name, label, unit: this.attr.unit, boolean: this.attr.boolean };
  }

  /** This asset's attribute first, then the compared ones, at most six lines (comparison.ts, chartPlan). */
  private plan(): ReturnType<typeof chartPlan> {
    return chartPlan(this.primary(), this.o.comparison.list);
  }

  private pin(): void {
    if (!this.o.comparison.add(this.primary())) notify(`At most ${MAX_COMPARED} series can be compared.`, 'info', 3000);
    else this.o.onChange();
  }

  private showComparison(): void {
    const pinned = this.o.comparison.has(this.primary());
    const full = !pinned && this.o.comparison.full;
    this.compareButton.disabled = pinned || full;
    this.compareButton.textContent = pinned ? 'In the comparison' : full ? `Comparison full (${MAX_COMPARED})` : 'Add to comparison';
    this.compareButton.title = full
      ? `At most ${MAX_COMPARED} series are compared: remove one to add this one`
      : 'Keep this attribute on the chart while you open other assets';
    this.compareList.replaceChildren(...this.plan().listed.map(({ pair: p, colour }) => h('li', {
      class: colour === null ? 'compare-item off' : 'compare-item', 'data-testid': 'compare-item', 'data-drawn': String(colour !== null),
    },
      h('span', { class: colour === null ? 'swatch off' : `swatch s${colour}`, 'aria-hidden': 'true' }),
      h('span', { class: 'compare-label' }, p.label,
        colour === null ? h('span', { class: 'compare-note' }, ` · not on the chart while this asset is shown (${MAX_COMPARED} lines at most)`) : null),
      h('button', {
        type: 'button', class: 'icon-button small', 'aria-label': `Remove ${p.label} from the comparison`, 'data-testid': 'compare-remove',
        onclick: () => { this.o.comparison.remove(p); this.o.onChange(); },
      }, '×'))));
  }

  async load(): Promise<void> {
    this.loading?.abort();
    const ctrl = new AbortController();
    this.loading = ctrl;
    const { from, to } = this.picker.value;
    this.chartHost.dataset.state = 'loading';
    this.chartHost.setAttribute('aria-busy', 'true');
    this.status.textContent = 'Loading readings…';
    const plan = this.plan();
    const pairs = plan.drawn;
    const comparing = pairs.length > 1;
    const left = plan.listed.filter((l) => l.colour === null).length;
    try {
      const results = await Promise.allSettled(pairs.map((p) => loadSeries(this.o.api, p.id, p.attr, from, to, p.boolean, ctrl.signal)));
      if (ctrl.signal.aborted) return;
      const primary = results[0]!;
      if (primary.status === 'rejected') throw primary.reason;
      const loaded = results.map((r, i) => ({ pair: pairs[i]!, series: r.status === 'fulfilled' ? r.value : null }));
      this.lines = loaded.flatMap(({ pair, series }, i) => (series ? [{
        label: (comparing ? pair.label : pair.attr) + (series.resolution === 'raw' ? '' : ` (${RESOLUTION_WORDS[series.resolution].replace(/s$/, '')})`),
        unit: pair.unit, boolean: pair.boolean, colour: LINE_COLOURS[i]!, x: series.x, y: series.y,
      }] : []));
      const points = loaded[0]!.series!.y.filter((v) => v !== null).length;
      const all = this.lines.reduce((n, l) => n + l.y.filter((v) => v !== null).length, 0);
      this.chartHost.dataset.points = String(points);
      this.chartHost.dataset.lines = String(this.lines.length);
      this.chart.draw(this.lines, from, to, { onZoom: (a, b) => this.zoom(a, b), onReset: () => this.reset() });
      this.chartHost.dataset.state = all === 0 ? 'empty' : 'ready';
      this.chartHost.setAttribute('aria-label', all === 0 ? 'No readings in this period.'
        : loaded.flatMap(({ series }, i) => (series ? [describeLine(series, this.lines[i]!)] : [])).join(' '));
      const failed = loaded.filter((l) => !l.series).length;
      const first = loaded[0]!.series!;
      const what = all === 0 ? 'No readings in this period.'
        : comparing ? `${this.lines.length} series, ${formatNumber(all)} points.`
          : `${formatNumber(points)} ${RESOLUTION_WORDS[first.resolution]}${first.truncated ? '; the most recent ones are not shown' : ''}.`;
      const notes = [
        failed ? `${failed} compared series could not be loaded.` : '',
        left ? `${left} compared series not drawn: a chart holds ${MAX_COMPARED} lines.` : '',
      ];
      this.status.textContent = [what, ...notes].filter(Boolean).join(' ');
    } catch (err) {
      if (isAbort(err)) return;
      this.lines = [];
      this.chart.clear();
      this.chartHost.dataset.state = 'error';
      this.status.textContent = err instanceof ApiError && err.status === 404
        ? 'No history is recorded for this attribute.'
        : err instanceof ApiError ? err.message : 'The readings could not be loaded.';
    } finally {
      if (this.loading === ctrl) this.chartHost.removeAttribute('aria-busy');
    }
  }

  private downloadShown(): void {
    if (!this.lines.length) {
      notify('There is nothing on the chart to download.', 'info', 3000);
      return;
    }
    const { from, to } = this.picker.value;
    download(chartCsv(this.lines), csvFilename(`${assetName(this.o.assetId)}-${this.attr.name}`, from, to));
  }

  /** The datasource's export of the asset's whole history. */
  private exportUrl(): string {
    const q = new URLSearchParams({ from: new Date(0).toISOString(), to: new Date().toISOString() });
    return `/datasource/${encodeURIComponent(this.o.assetId)}/export?${q.toString()}`;
  }

  private setExportHref(): void {
    this.exportLink.href = this.exportUrl();
  }

  /** Fetched rather than followed, to ask for CSV; a platform without the export says so instead of opening an error page. */
  private async exportWhole(): Promise<void> {
    this.setExportHref();
    try {
      const csv = await this.o.api.document(this.exportUrl(), 'text/csv');
      if (csv === null) notify('This platform does not offer the whole history for download.', 'info', 4000);
      else download(csv, csvFilename(`${assetName(this.o.assetId)}-history`, 0, Date.now()));
    } catch (err) {
      notify(err instanceof ApiError ? `The history could not be downloaded. ${err.message}` : 'The history could not be downloaded just now.', 'info', 4000);
    }
  }

  destroy(): void {
    this.loading?.abort();
    this.stopListening();
    this.chart.destroy();
  }
}
