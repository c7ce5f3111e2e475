import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoAssets } from '../../src/demo/city.js';
import { firstReportAt, lastReportAt, reportsAt } from '../../src/demo/irregular.js';
import { SIGNALS } from '../../src/demo/signals.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const assets = demoAssets();

describe('the demo city looks like a city', () => {
  it('gives every asset a cadence of its kind, so that a week holds at least 28 reports of each', () => {
    for (const a of assets) {
      assert.ok(a.cadenceMinutes >= 30 && a.cadenceMinutes <= 360 && a.cadenceMinutes % 30 === 0, `${a.id}: ${a.cadenceMinutes}`);
    }
    const busStop = assets.find((a) => a.type.endsWith(':busStop'))!;
    const traffic = assets.find((a) => a.type.endsWith(':vehiclecount'))!;
    assert.ok(traffic.cadenceMinutes < busStop.cadenceMinutes);
  });

  it('has a realistic share of stopped sensors and of gaps, none in the last 36 hours, the real entities whole', () => {
    const stopped = assets.filter((a) => a.irregularity.stoppedBeforeEnd !== null);
    const gapped = assets.filter((a) => a.irregularity.gapBeforeEnd !== null);
    assert.ok(stopped.length > assets.length * 0.04 && stopped.length < assets.length * 0.12, `${stopped.length} stopped`);
    assert.ok(gapped.length > assets.length * 0.08 && gapped.length < assets.length * 0.22, `${gapped.length} with a gap`);
    for (const a of [...stopped, ...gapped]) assert.ok(!a.real);
    const end = 100 * DAY;
    const week = (a: (typeof assets)[number]) => ({ cadenceMs: a.cadenceMinutes * 60_000, historyMs: WEEK });
    /** The half hours (every turn of every kind) from `from` to `to` ms before the end. */
    const grid = (from: number, to: number) => {
      const times: number[] = [];
      for (let t = Math.ceil((end - from) / (30 * 60_000)) * 30 * 60_000; t <= end - to; t += 30 * 60_000) times.push(t);
      return times;
    };
    for (const a of stopped) {
      const after = grid(a.irregularity.stoppedBeforeEnd! - 1, 0);
      assert.ok(after.length > 0 && after.every((t) => !reportsAt(a.irregularity, t, end, week(a))), `${a.id} reports after it stopped`);
      assert.ok(end - lastReportAt(a.irregularity, end, a.cadenceMinutes * 60_000) > 36 * HOUR, 'a stopped sensor is past the online window');
    }
    for (const a of gapped) {
      const [from, to] = a.irregularity.gapBeforeEnd!;
      const silent = grid(from, to + 1);
      assert.ok(silent.length > 0 && silent.every((t) => !reportsAt(a.irregularity, t, end, week(a))), `${a.id} reports in its gap`);
      const cadence = a.cadenceMinutes * 60_000;
      assert.equal(reportsAt(a.irregularity, Math.ceil((end - 36 * HOUR) / cadence) * cadence, end, week(a)), true);
    }
  });

  it('gives every asset, a stopped one included, at least a week of history at its cadence', () => {
    // An end off every kind's turns, as a demo loaded at any time has.
    const end = Date.UTC(2026, 10, 20, 13, 30);
    for (const a of assets) {
      const cadence = a.cadenceMinutes * 60_000;
      const reporting = { cadenceMs: cadence, historyMs: WEEK };
      const reports: number[] = [];
      for (let t = firstReportAt(a.irregularity, end, reporting) - DAY; t <= end; t += 30 * 60_000) {
        if (reportsAt(a.irregularity, t, end, reporting)) reports.push(t);
      }
      const span = reports[reports.length - 1]! - reports[0]!;
      assert.ok(span >= WEEK, `${a.id}: ${span / HOUR} h of history`);
      // Every turn of the week is reported but those of a gap (a day at most).
      assert.ok(reports.length >= (WEEK - DAY) / cadence, `${a.id}: ${reports.length} reports every ${a.cadenceMinutes} min`);
      assert.ok(reports.every((t) => t % cadence === 0));
    }
  });

  it('gives every asset the days of history asked for, fewer or more than a week', () => {
    const end = Date.UTC(2026, 10, 20, 13, 30);
    for (const days of [1, 2, 14]) {
      for (const a of assets.slice(0, 400)) {
        const reporting = { cadenceMs: a.cadenceMinutes * 60_000, historyMs: days * DAY };
        const first = firstReportAt(a.irregularity, end, reporting);
        const last = lastReportAt(a.irregularity, end, reporting.cadenceMs);
        assert.ok(last - first >= days * DAY && last - first < days * DAY + reporting.cadenceMs, `${a.id}, ${days} days`);
        assert.equal(reportsAt(a.irregularity, first, end, reporting) || a.irregularity.gapBeforeEnd !== null, true);
        assert.equal(reportsAt(a.irregularity, first - reporting.cadenceMs, end, reporting), false);
      }
    }
  });

  it('holds a heat afternoon and a full car park in any week', () => {
    const start = Date.UTC(2026, 10, 1);
    let hottest = -Infinity;
    let usual = -Infinity;
    let fullEvenings = 0;
    for (let t = start; t < start + 7 * DAY; t += HOUR) {
      const temp = SIGNALS.temperature.value(7, t, 0) as number;
      const day = Math.floor(t / DAY) % 7;
      if (day === 4) hottest = Math.max(hottest, temp);
      else usual = Math.max(usual, temp);
      let occupied = 0;
      for (let seed = 0; seed < 50; seed++) if (SIGNALS.parking.value(seed, t, 0) === true) occupied++;
      if (occupied >= 45) fullEvenings++;
    }
    assert.ok(hottest > usual + 5, `heat afternoon ${hottest} against ${usual}`);
    assert.ok(fullEvenings >= 3, `${fullEvenings} hours with the car park full`);
  });
});
