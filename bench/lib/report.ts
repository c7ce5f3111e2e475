import fs from 'node:fs';
import type { LoadResult, ResultRow } from '../types.js';
import { machineLine, type Machine } from './machine.js';

/** Our throughput as a share of the baseline's (1.0 = as fast as the bare ceiling). */
export function ratio(row: ResultRow): number {
  return row.baseline.rps > 0 ? row.result.rps / row.baseline.rps : 0;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');
/** Rates under 10/s (start-ups per second) keep two decimals. */
const rate = (n: number) => (n < 10 ? n.toFixed(2) : int(n));
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n.toFixed(2));

const HEADER = ['measured', 'rps', 'p50 ms', 'p90 ms', 'p99 ms', 'errors', 'baseline', 'baseline rps', 'baseline p99 ms', 'ratio', 'goal', 'met'];

function cells(row: ResultRow): string[] {
  const r: LoadResult = row.result;
  return [
    row.name, rate(r.rps), ms(r.p50Ms), ms(r.p90Ms), ms(r.p99Ms), int(r.errors),
    row.baselineName, rate(row.baseline.rps), ms(row.baseline.p99Ms), ratio(row).toFixed(2), row.goal, row.met ? 'yes' : 'NO',
  ];
}

/** A plain-text table for the terminal. */
export function textTable(rows: ResultRow[]): string {
  const all = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 || i === 6 || i === 10 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(HEADER), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r) => line(cells(r)))].join('\n');
}

export function markdownTable(rows: ResultRow[]): string {
  const esc = (c: string) => c.replace(/\|/g, '\\|');
  return [
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map((_, i) => (i === 0 || i === 6 || i === 10 ? '---' : '---:')).join('|')}|`,
    ...rows.map((r) => `| ${cells(r).map(esc).join(' | ')} |`),
  ].join('\n');
}

export interface ScenarioOutcome {
  name: string;
  description: string;
  rows: ResultRow[];
  /** Set when the scenario failed to run. */
  error?: string;
}

const PREAMBLE = `# Benchmark results

The latest figures of \`npm run bench\` (see bench/README.md for how to run and read them). Each
scenario's section is rewritten when that scenario runs, with the date and the machine it ran on;
sections of scenarios not run since stay as they were. \`ratio\` is our throughput divided by the
baseline's, both measured in the same run on the same machine.
`;

const begin = (name: string) => `<!-- scenario:${name} -->`;
const end = (name: string) => `<!-- /scenario:${name} -->`;

function section(outcome: ScenarioOutcome, when: Date, machine: Machine): string {
  const body = outcome.error
    ? `The scenario failed: \`${outcome.error.split('\n')[0]}\``
    : markdownTable(outcome.rows);
  return [
    begin(outcome.name),
    `## ${outcome.name}`,
    '',
    outcome.description,
    '',
    `Measured ${when.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineLine(machine)}.`,
    '',
    body,
    end(outcome.name),
  ].join('\n');
}

/** Rewrites the sections of the scenarios just run in RESULTS.md; keeps the others. */
export function updateResultsFile(file: string, outcomes: ScenarioOutcome[], when: Date, machine: Machine): void {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const sections = new Map<string, string>();
  const pattern = /<!-- scenario:([\w.-]+) -->[\s\S]*?<!-- \/scenario:\1 -->/g;
  for (const match of previous.matchAll(pattern)) sections.set(match[1] as string, match[0]);
  for (const outcome of outcomes) sections.set(outcome.name, section(outcome, when, machine));
  const ordered = [...sections.keys()].sort((a, b) => (a === 'core' ? -1 : b === 'core' ? 1 : a.localeCompare(b)));
  fs.writeFileSync(file, `${PREAMBLE}\n${ordered.map((n) => sections.get(n)).join('\n\n')}\n`);
}
