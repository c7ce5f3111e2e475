import { csvDocument } from '../../src/domain/csv';
import type { ChartLine } from './chart';

/**
 * What a chart shows, as CSV: one row per instant of any line (ISO 8601 UTC), one column per line
 * named by its label and unit; a cell is empty where that line has no value then.
 */
export function chartCsv(lines: ChartLine[]): string {
  const header = ['time', ...lines.map((l) => (l.unit ? `${l.label} (${l.unit})` : l.label))];
  const rows = new Map<number, string[]>();
  lines.forEach((line, i) => {
    line.x.forEach((t, k) => {
      const v = line.y[k];
      if (v === null || v === undefined) return;
      let row = rows.get(t);
      if (!row) rows.set(t, (row = Array<string>(lines.length).fill('')));
      row[i] = line.boolean ? (v >= 0.5 ? 'true' : 'false') : String(v);
    });
  });
  const sorted = [...rows.entries()].sort((a, b) => a[0] - b[0]);
  return csvDocument(header, sorted.map(([t, cells]) => [new Date(t * 1000).toISOString(), ...cells]));
}

/** Hands `text` to the browser as a file download. */
export function download(text: string, filename: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** `temperature-ambient_2026-11-19T07-00_2026-11-26T07-00.csv`: safe on every file system. */
export function csvFilename(name: string, from: number, to: number): string {
  const stamp = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace(/:/g, '-');
  return `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'chart'}_${stamp(from)}_${stamp(to)}.csv`;
}
