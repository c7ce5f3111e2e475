import { type Api, ApiError, isAbort } from './api';
import { Chart } from './chart';
import { h } from './dom';
import { formatNumber } from './format';
import { RANGES, type RangeKey, type Series, loadSeries } from './series';

/** The "History" section of the asset panel: attribute and range pickers over a chart. */

export interface Chartable {
  name: string;
  unit: string;
  /** true/false readings, charted as a step between 0 and 1. */
  boolean: boolean;
}

let uid = 0;

/** A sentence for screen readers, since the chart itself is a canvas. */
function describeSeries(series: Series, attr: Chartable, range: string): string {
  const values = series.y.filter((v): v is number => v !== null);
  if (attr.boolean) {
    const on = values.filter((v) => v === 1).length;
    return `${attr.name}, ${range.toLowerCase()}: ${values.length} readings, true in ${Math.round((on / Math.max(values.length, 1)) * 100)}% of them, latest ${values[values.length - 1] === 1 ? 'true' : 'false'}.`;
  }
  const unit = attr.unit ? ` ${attr.unit}` : '';
  const last = values[values.length - 1] ?? 0;
  return `${attr.name}, ${range.toLowerCase()}: ${values.length} ${series.aggregated ? 'hourly means' : 'readings'}, `
    + `lowest ${formatNumber(Math.min(...values))}${unit}, highest ${formatNumber(Math.max(...values))}${unit}, latest ${formatNumber(last)}${unit}.`;
}

export class HistoryView {
  readonly element: HTMLElement;
  private readonly chart: Chart;
  private readonly chartHost: HTMLElement;
  private readonly status: HTMLElement;
  private readonly attrSelect: HTMLSelectElement;
  private range: RangeKey = '24h';
  private attr: Chartable;
  private loading: AbortController | null = null;

  /** `lastReading` (epoch ms) picks the first range: a quiet asset opens on a range that still shows its data. */
  constructor(private readonly api: Api, private readonly assetId: string, private readonly attrs: Chartable[], lastReading: number | null) {
    this.attr = attrs[0]!;
    const age = lastReading === null ? 0 : Date.now() - lastReading;
    this.range = RANGES.find((r) => age <= r.hours * 3600_000)?.key ?? '30d';
    const id = `history-${++uid}`;
    this.attrSelect = h('select', { id: `${id}-attr`, 'data-testid': 'chart-attribute' },
      ...attrs.map((a) => h('option', { value: a.name }, a.name)));
    this.attrSelect.addEventListener('change', () => this.choose(this.attrSelect.value));

    const ranges = h('fieldset', { class: 'segmented compact', 'data-testid': 'chart-range' },
      h('legend', { class: 'visually-hidden' }, 'Time range'),
      ...RANGES.flatMap((r) => [
        h('input', {
          type: 'radio', name: `${id}-range`, id: `${id}-${r.key}`, value: r.key,
          checked: r.key === this.range, 'data-testid': `chart-range-${r.key}`,
          onchange: () => { this.range = r.key; void this.load(); },
        }),
        h('label', { for: `${id}-${r.key}` }, r.label),
      ]));

    this.status = h('p', { class: 'chart-status', role: 'status' });
    this.chartHost = h('div', { class: 'chart', role: 'img', 'aria-label': 'Chart loading', 'data-testid': 'asset-chart', 'data-state': 'loading', 'data-points': 0 });
    this.chart = new Chart(this.chartHost);
    this.element = h('section', { class: 'panel-section', 'aria-labelledby': `${id}-title` },
      h('h3', { id: `${id}-title` }, 'History'),
      h('div', { class: 'chart-controls' },
        h('div', { class: 'field inline' }, h('label', { for: `${id}-attr` }, 'Attribute'), this.attrSelect),
        ranges),
      this.chartHost,
      this.status);
  }

  /** Charts another attribute; called by the attribute list too. */
  choose(name: string): void {
    const next = this.attrs.find((a) => a.name === name);
    if (!next) return;
    this.attr = next;
    this.attrSelect.value = name;
    void this.load();
  }

  async load(): Promise<void> {
    this.loading?.abort();
    const ctrl = new AbortController();
    this.loading = ctrl;
    this.chartHost.dataset.state = 'loading';
    this.chartHost.setAttribute('aria-busy', 'true');
    this.status.textContent = 'Loading readings…';
    try {
      const series = await loadSeries(this.api, this.assetId, this.attr.name, this.range, this.attr.boolean, ctrl.signal);
      if (ctrl.signal.aborted) return;
      const points = series.y.filter((v) => v !== null).length;
      this.chartHost.dataset.points = String(points);
      if (points === 0) {
        this.chart.clear();
        this.chartHost.dataset.state = 'empty';
        this.status.textContent = 'No readings in this period.';
        return;
      }
      this.chart.draw(series, this.attr.name, this.attr.unit, this.attr.boolean);
      this.chartHost.dataset.state = 'ready';
      this.chartHost.setAttribute('aria-label', describeSeries(series, this.attr, RANGES.find((r) => r.key === this.range)?.label ?? ''));
      const what = series.aggregated ? `${points} hourly means` : `${points} readings`;
      this.status.textContent = series.truncated ? `${what}; the most recent ones are not shown.` : what;
    } catch (err) {
      if (isAbort(err)) return;
      this.chart.clear();
      this.chartHost.dataset.state = 'error';
      this.status.textContent = err instanceof ApiError && err.status === 404
        ? 'No history is recorded for this attribute.'
        : err instanceof ApiError ? err.message : 'The readings could not be loaded.';
    } finally {
      if (this.loading === ctrl) this.chartHost.removeAttribute('aria-busy');
    }
  }

  destroy(): void {
    this.loading?.abort();
    this.chart.destroy();
  }
}
