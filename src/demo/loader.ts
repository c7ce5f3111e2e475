import type { AppContext } from '../context.js';
import type { ManualClock } from '../domain/clock.js';
import { AppError } from '../domain/errors.js';
import { parseInstant, TIME_INSTANT } from '../domain/time-instant.js';
import { httpStatus } from '../http/error-handler.js';
import { createAsset, updateAsset } from '../services/federation.js';
import { mapInParallel } from '../services/in-parallel.js';
import { findLiveAsset } from '../storage/repositories/assets.js';
import { dictionarySize, type DictionarySize } from '../storage/repositories/dictionary.js';
import { upsertSite } from '../storage/repositories/sites.js';
import { updateBody } from './bodies.js';
import { creationOf, DEMO_SITES, demoAssets, measurements, type DemoAsset } from './city.js';
import { firstReportAt, reportsAt } from './irregular.js';

/**
 * Loads the demo city through the federation service — the code path a real
 * site's requests take — so that discovery and the datasource see it exactly
 * as they would see real data. Every asset gets a history of `days` days at
 * its kind's cadence (or every `stepMinutes`), silent in its gap if it has one
 * (src/demo/irregular.ts); a sensor that stopped gets as long a history, ending
 * when it stopped. Running it again adds nothing already there: an existing
 * asset only gets the reports missing since its last one, so a demo loaded last
 * week comes back up to date.
 */

export interface DemoOptions {
  /** Days of history of every asset (default 7). */
  days?: number;
  /** Minutes between two reports of every asset (default: each kind's own cadence). */
  stepMinutes?: number;
  /** Load only the first `maxAssets` assets (tests); the 45 real entities come first. */
  maxAssets?: number;
  /** Requests in flight at once: enough for the write pipeline to commit them in batches. */
  concurrency?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface DemoSummary {
  sites: number;
  dictionary: DictionarySize;
  /** featured: assets reporting through the whole history; stopped: those that stopped days ago (offline). */
  assets: { total: number; created: number; existing: number; featured: number; stopped: number };
  /** Update requests pushed. */
  updates: number;
  /** Readings recorded by this run (one per attribute of each request). */
  readings: number;
  /** History covered, ISO 8601. */
  from: string;
  to: string;
  /** Assets federation refused, with its reason (none expected). */
  refused: Array<{ id: string; reason: string }>;
}

const MINUTE_MS = 60_000;

/** When the stored asset was last observed (its TimeInstant), or undefined when it is not stored. */
async function lastObserved(ctx: AppContext, id: string): Promise<number | undefined> {
  const stored = await findLiveAsset(ctx.store, id);
  if (!stored) return undefined;
  const attrs = JSON.parse(stored.attrs) as Record<string, { value?: unknown }>;
  const parsed = parseInstant(String(attrs[TIME_INSTANT]?.value ?? ''));
  return parsed.ok ? parsed.epochMs : 0;
}

/** Each asset observes a little before the platform receives (a per-asset delay under a minute). */
const observedBefore = (asset: DemoAsset, receivedAt: number) => receivedAt - 1000 - (asset.seed % 50_000);

const reason = (error: unknown) => (error instanceof AppError ? `${httpStatus(error)} ${error.message}` : (error as Error).message);

interface AssetState {
  /** Stored (created before this run, or by it). */
  stored: boolean;
  /** Receive time of its last report, epoch ms (0 when unknown). */
  lastReport: number;
  refused: boolean;
}

/**
 * Loads the demo into the store of `ctx`, whose clock must be a ManualClock:
 * it is moved through the history so that every reading is received at its
 * time. The history ends at `ctx.clock.now()` as given.
 */
export async function loadDemo(ctx: AppContext & { clock: ManualClock }, options: DemoOptions = {}): Promise<DemoSummary> {
  const clock = ctx.clock;
  // Every kind's cadence is a multiple of 30 minutes: the loop steps by that, each asset reports on its own grid.
  const stepMs = (options.stepMinutes ?? 30) * MINUTE_MS;
  const cadenceMs = (a: DemoAsset) => (options.stepMinutes ?? a.cadenceMinutes) * MINUTE_MS;
  const end = Math.floor(clock.now() / stepMs) * stepMs;
  const historyMs = (options.days ?? 7) * 24 * 60 * MINUTE_MS;
  const concurrency = options.concurrency ?? 256;
  const log = options.log ?? (() => {});

  for (const site of DEMO_SITES) await upsertSite(ctx.store, { ...site, type: 'city', quota: null }, end);

  const assets = demoAssets().slice(0, options.maxAssets);
  const state = new Map<string, AssetState>();
  await mapInParallel(assets, 32, async (asset) => {
    const seen = await lastObserved(ctx, asset.id);
    // A report is received under a minute after it was observed (observedBefore): this bounds when the last one came.
    state.set(asset.id, { stored: seen !== undefined, lastReport: seen === undefined ? 0 : seen + MINUTE_MS, refused: false });
  });
  const stateOf = (asset: DemoAsset) => state.get(asset.id) as AssetState;
  const existing = assets.filter((a) => stateOf(a).stored).length;

  const refused: DemoSummary['refused'] = [];
  let readings = 0;
  let updates = 0;
  let created = 0;

  /** One request, received at `receivedAt` (the clock already says so). */
  const push = async (asset: DemoAsset, receivedAt: number) => {
    const s = stateOf(asset);
    const observed = observedBefore(asset, receivedAt);
    const body = s.stored ? updateBody(observed, measurements(asset, observed)) : creationOf(asset, observed);
    try {
      if (s.stored) {
        await updateAsset(ctx, asset.site.id, asset.id, body);
        updates++;
      } else {
        await createAsset(ctx, asset.site.id, body);
        created++;
        s.stored = true;
      }
      s.lastReport = receivedAt;
      readings += Object.keys(body).filter((k) => k !== 'id' && k !== 'type').length;
    } catch (error) {
      s.refused = true;
      refused.push({ id: asset.id, reason: reason(error) });
    }
  };

  // Every asset reports at its cadence over the history up to its last report (the end, or when it
  // stopped), except while silent in a gap; one already stored only on its turns after its last report.
  const reporting = (a: DemoAsset) => ({ cadenceMs: cadenceMs(a), historyMs });
  const earliest = Math.min(end, ...assets.map((a) => firstReportAt(a.irregularity, end, reporting(a))));
  const start = Math.floor(earliest / stepMs) * stepMs;
  let loggedDay = '';
  for (let t = start; t <= end; t += stepMs) {
    const due = assets.filter((a) => !stateOf(a).refused && stateOf(a).lastReport < t && reportsAt(a.irregularity, t, end, reporting(a)));
    if (due.length === 0) continue;
    // The clock stays at t until every request of this step has been received and committed.
    clock.set(t);
    await mapInParallel(due, concurrency, (a) => push(a, t));
    const day = new Date(t).toISOString().slice(0, 10);
    if (day !== loggedDay) {
      loggedDay = day;
      log(`  ${day}: ${readings.toLocaleString('en-US')} readings so far`);
    }
  }
  clock.set(end);
  const stopped = assets.filter((a) => a.irregularity.stoppedBeforeEnd !== null).length;

  return {
    sites: DEMO_SITES.length,
    dictionary: await dictionarySize(ctx.store),
    assets: { total: assets.length, created, existing, featured: assets.length - stopped, stopped },
    updates,
    readings,
    from: new Date(start).toISOString(),
    to: new Date(end).toISOString(),
    refused,
  };
}
