import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { demoAssets } from '../../src/demo/city.js';
import { reportsAt } from '../../src/demo/irregular.js';
import { SIGNALS } from '../../src/demo/signals.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
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
    for (const a of stopped) {
      assert.equal(reportsAt(a.irregularity, end - 30 * HOUR, end), false, 'a stopped sensor is past the online window');
      assert.equal(reportsAt(a.irregularity, end - 7 * DAY, end), true);
    }
    for (const a of gapped) {
      const [from, to] = a.irregularity.gapBeforeEnd!;
      assert.equal(reportsAt(a.irregularity, end - (from + to) / 2, end), false);
      assert.equal(reportsAt(a.irregularity, end - 36 * HOUR, end), true);
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
