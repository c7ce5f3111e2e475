import type { Command } from 'commander';
import { buildApp } from '../../app.js';
import { ManualClock } from '../../domain/clock.js';
import type { DemoSummary } from '../../demo/loader.js';
import { fail, print, withStore } from '../runtime.js';

function describe(s: DemoSummary): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    `demo city loaded (${s.from} to ${s.to})`,
    `  sites:           ${n(s.sites)}`,
    `  dictionary:      ${n(s.dictionary.assetTypes)} asset types, ${n(s.dictionary.attributeTypes)} attribute types, ${n(s.dictionary.units)} units`,
    `  assets:          ${n(s.assets.total)} (${n(s.assets.created)} created now, ${n(s.assets.existing)} already there; ${n(s.assets.stopped)} stopped days ago)`,
    `  requests:        ${n(s.assets.created)} creates, ${n(s.updates)} updates`,
    `  readings added:  ${n(s.readings)}`,
  ];
  if (s.refused.length > 0) lines.push(`  refused:         ${s.refused.length} (first: ${s.refused[0]?.id}: ${s.refused[0]?.reason})`);
  return lines.join('\n');
}

const positiveInt = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}`);
  return n;
};

export function demoCommands(program: Command): void {
  program.command('demo')
    .description('load the demo city: the real OrganiCity sites, types and asset positions, with a week of synthetic readings for every asset at its kind\'s cadence, some sensors stopped and some gaps (idempotent)')
    .option('--days <n>', 'days of history', positiveInt('days', 1, 31), 7)
    .option('--step <minutes>', 'minutes between two readings of every asset (default: each kind\'s cadence, 30 min to 6 h)', positiveInt('step', 5, 1440))
    .option('--json', 'print the summary as JSON')
    .option('--live', 'then keep the city alive: push updates through the federation interface, each site with its own token, until Ctrl-C')
    .option('--rate <n>', 'live updates per second, over all sites (with --live)', positiveInt('rate', 1, 5000), 5)
    .option('--count <n>', 'stop after this many live updates (with --live)', positiveInt('count', 1, 100_000_000))
    .action(async (o: { days: number; step?: number; json?: boolean; live?: boolean; rate: number; count?: number }) => {
      // Loaded here, not with the command line: every other command, `serve` first, has no use for the demo city's data.
      const [{ loadDemo }, { pushLiveUpdates }] = await Promise.all([import('../../demo/loader.js'), import('../../demo/live.js')]);
      await withStore(async (store, config) => {
        // The whole platform on this store, as `serve` builds it, so the data goes through the federation service.
        const clock = new ManualClock(Date.now());
        const { app, ctx } = await buildApp({ config: { ...config, logLevel: 'warn' }, store, clock, migrate: false });
        try {
          const summary = await loadDemo({ ...ctx, clock }, {
            days: o.days, stepMinutes: o.step,
            log: o.json ? undefined : (line) => process.stderr.write(`${line}\n`),
          });
          print(!!o.json, summary, describe(summary));
          if (o.live) {
            const stop = new AbortController();
            const onSignal = () => stop.abort();
            process.once('SIGINT', onSignal);
            process.once('SIGTERM', onSignal);
            process.stderr.write(`pushing ${o.rate} live updates a second${o.count ? ` (${o.count} in all)` : '; Ctrl-C stops'}\n`);
            try {
              const live = await pushLiveUpdates(app, { ...ctx, clock }, {
                rate: o.rate, count: o.count, signal: stop.signal, log: (line) => process.stderr.write(`${line}\n`),
              });
              process.stderr.write(`live updates pushed: ${live.updates}${live.refused ? `; refused: ${live.refused} (first: ${live.firstRefusal})` : ''}\n`);
              if (live.refused > 0) process.exitCode = 1;
            } finally {
              process.off('SIGINT', onSignal);
              process.off('SIGTERM', onSignal);
            }
          }
        } finally {
          await app.close();
        }
      });
    });
}
