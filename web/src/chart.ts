import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber } from './format';
import type { Series } from './series';

/** A time-series line chart (uPlot) that follows the width of its container. */

const HEIGHT = 220;
const ACCENT = '#2563eb';

export class Chart {
  private plot: uPlot | null = null;
  private readonly observer: ResizeObserver;

  constructor(private readonly host: HTMLElement) {
    this.observer = new ResizeObserver(() => {
      const width = this.host.clientWidth;
      if (this.plot && width > 0 && Math.abs(width - this.plot.width) > 1) this.plot.setSize({ width, height: HEIGHT });
    });
    this.observer.observe(host);
  }

  draw(series: Series, label: string, unit: string, boolean = false): void {
    this.plot?.destroy();
    const suffix = unit ? ` ${unit}` : '';
    const showPoints = !boolean && series.x.length <= 48;
    const text = (v: number): string => (boolean ? (v >= 0.5 ? 'true' : 'false') : `${formatNumber(v)}${suffix}`);
    const opts: uPlot.Options = {
      width: Math.max(this.host.clientWidth, 240),
      height: HEIGHT,
      padding: [12, 12, 0, 4],
      cursor: { drag: { x: false, y: false }, points: { size: 7 } },
      legend: { show: true, live: true },
      scales: { x: { time: true }, ...(boolean ? { y: { range: [-0.1, 1.1] as [number, number] } } : {}) },
      series: [
        { label: 'Time', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })) },
        {
          label: series.aggregated ? `${label} (hourly mean)` : label,
          stroke: ACCENT,
          width: 2,
          fill: 'rgba(37, 99, 235, 0.10)',
          spanGaps: false,
          points: { show: showPoints, size: 5, fill: ACCENT },
          ...(boolean ? { paths: uPlot.paths.stepped?.({ align: 1 }) } : {}),
          value: (_u, v) => (v == null ? '—' : text(v)),
        },
      ],
      axes: [
        { stroke: '#475569', grid: { stroke: '#e2e8f0', width: 1 }, ticks: { stroke: '#cbd5e1', width: 1 } },
        {
          stroke: '#475569',
          size: 56,
          grid: { stroke: '#e2e8f0', width: 1 },
          ticks: { stroke: '#cbd5e1', width: 1 },
          ...(boolean ? { splits: () => [0, 1] } : {}),
          values: (_u, splits) => splits.map((v) => (boolean ? (v === 1 ? 'true' : v === 0 ? 'false' : '') : formatNumber(v))),
          label: unit || undefined,
        },
      ],
    };
    this.plot = new uPlot(opts, [series.x, series.y], this.host);
  }

  clear(): void {
    this.plot?.destroy();
    this.plot = null;
  }

  destroy(): void {
    this.clear();
    this.observer.disconnect();
  }
}
