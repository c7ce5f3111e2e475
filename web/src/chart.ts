import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatNumber } from './format';

/**
 * A time-series chart (uPlot) of one or more lines that follows the width of its container. Its
 * x axis is always the chosen range, whatever the data hold (none, one reading or many); each unit
 * gets an axis of its own; a drag across it asks for that range, a double click for the range
 * before the zooms.
 */

const HEIGHT = 240;
/** Six colours told apart by most people with a colour vision deficiency (Okabe & Ito). */
export const LINE_COLOURS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9'];

export interface ChartLine {
  label: string;
  unit: string;
  boolean: boolean;
  colour: string;
  /** Seconds since the epoch, ascending. */
  x: number[];
  y: (number | null)[];
}

export interface ChartHandlers {
  onZoom(from: number, to: number): void;
  onReset(): void;
}

const scaleOf = (line: ChartLine): string => (line.boolean ? 'bool' : `u:${line.unit}`);

/** The lines on one shared time axis: readings of different assets rarely fall at the same seconds. */
export function alignLines(lines: ChartLine[]): uPlot.AlignedData {
  if (lines.length === 0) return [[]];
  if (lines.length === 1) return [lines[0]!.x, lines[0]!.y];
  // Nulls of a series stay gaps; the holes the alignment makes are spanned (undefined).
  return uPlot.join(lines.map((l) => [l.x, l.y] as uPlot.AlignedData), lines.map(() => [0, 1]));
}

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

  draw(lines: ChartLine[], from: number, to: number, handlers: ChartHandlers): void {
    this.plot?.destroy();
    const data = alignLines(lines);
    const scaleKeys = [...new Set(lines.map(scaleOf))];
    const scales: uPlot.Scales = {
      x: { time: true, range: () => [from / 1000, to / 1000] },
    };
    for (const key of scaleKeys) {
      scales[key] = key === 'bool'
        ? { range: [-0.1, 1.1] }
        : { range: (_u, min, max) => (min == null || max == null || !Number.isFinite(min) ? [0, 1] : min === max ? [min - 1, max + 1] : uPlot.rangeNum(min, max, 0.1, true)) };
    }
    const axisStyle = { stroke: '#475569', grid: { stroke: '#e2e8f0', width: 1 }, ticks: { stroke: '#cbd5e1', width: 1 } };
    const axes: uPlot.Axis[] = [{ ...axisStyle }];
    scaleKeys.forEach((key, i) => {
      const unit = key === 'bool' ? '' : key.slice(2);
      axes.push({
        ...axisStyle,
        scale: key,
        side: i % 2 === 0 ? 3 : 1,
        size: 56,
        grid: { ...axisStyle.grid, show: i === 0 },
        ...(key === 'bool' ? { splits: () => [0, 1] } : {}),
        values: (_u, splits) => splits.map((v) => (key === 'bool' ? (v === 1 ? 'true' : v === 0 ? 'false' : '') : formatNumber(v))),
        label: unit || undefined,
      });
    });
    const points = lines.reduce((n, l) => n + l.x.length, 0);
    const series: uPlot.Series[] = [
      { label: 'Time', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })) },
      ...lines.map((line): uPlot.Series => {
        const suffix = line.unit ? ` ${line.unit}` : '';
        return {
          label: line.label,
          scale: scaleOf(line),
          stroke: line.colour,
          width: 2,
          fill: lines.length === 1 ? `${line.colour}1a` : undefined,
          spanGaps: false,
          points: { show: !line.boolean && (line.x.length <= 48 || points <= 2), size: 6, fill: line.colour },
          ...(line.boolean ? { paths: uPlot.paths.stepped?.({ align: 1 }) } : {}),
          value: (_u, v) => (v == null ? '—' : line.boolean ? (v >= 0.5 ? 'true' : 'false') : `${formatNumber(v)}${suffix}`),
        };
      }),
    ];
    const opts: uPlot.Options = {
      width: Math.max(this.host.clientWidth, 240),
      height: HEIGHT,
      padding: [12, 12, 0, 4],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { size: 7 } },
      legend: { show: true, live: true },
      scales,
      series,
      axes,
      hooks: {
        // The axis as drawn, for tests and tools: it is the chosen range whatever the data hold.
        setScale: [(u, key) => {
          const x = u.scales.x;
          if (key !== 'x' || x?.min == null || x.max == null) return;
          this.host.dataset.from = new Date(Math.round(x.min * 1000)).toISOString();
          this.host.dataset.to = new Date(Math.round(x.max * 1000)).toISOString();
        }],
        setSelect: [(u) => {
          if (u.select.width < 4) return;
          const a = u.posToVal(u.select.left, 'x') * 1000;
          const b = u.posToVal(u.select.left + u.select.width, 'x') * 1000;
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          if (b - a >= 60_000) handlers.onZoom(Math.round(a), Math.round(b));
        }],
      },
    };
    this.plot = new uPlot(opts, data, this.host);
    this.plot.over.addEventListener('dblclick', () => handlers.onReset());
    this.plot.over.dataset.testid = 'chart-area';
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
