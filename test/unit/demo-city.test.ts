import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAssetCreation, readAssetUpdate } from '../../src/domain/asset-body.js';
import { positionFromAttributes } from '../../src/domain/position.js';
import { updateBody } from '../../src/demo/bodies.js';
import { creationOf, DEMO_SITES, demoAssets, measurements } from '../../src/demo/city.js';
import { localHour, SIGNALS } from '../../src/demo/signals.js';

const NOW = Date.parse('2026-03-02T12:00:00.000Z');
const HOUR = 3_600_000;

describe('demo city', () => {
  const assets = demoAssets();

  it('holds the 45 real Santander entities first, then one asset per distinct real position', () => {
    assert.equal(assets.slice(0, 45).every((a) => a.real !== undefined), true);
    assert.equal(assets.filter((a) => a.real).length, 45);
    assert.equal(new Set(assets.map((a) => a.id)).size, assets.length);
    assert.ok(assets.length > 2400, `${assets.length} assets`);
  });

  it('makes every create and update a body federation accepts, on the asset’s own site', () => {
    for (const asset of assets) {
      const creation = readAssetCreation(creationOf(asset, NOW), asset.site.id);
      assert.equal(creation.id, asset.id);
      assert.equal(creation.recordedAt, NOW);
      readAssetUpdate(updateBody(NOW + HOUR, measurements(asset, NOW + HOUR)));
    }
  });

  it('places assets at their real position, or at the site centre when it was unknown (0, 0)', () => {
    // The real positions hold a few strays (a mobile sensor near Madrid): kept as they were, but never (0, 0).
    let far = 0;
    for (const asset of assets) {
      const creation = readAssetCreation(creationOf(asset, NOW), asset.site.id);
      const position = positionFromAttributes(creation.attributes, asset.site) ?? asset.site;
      const km = Math.hypot(position.latitude - asset.site.latitude, (position.longitude - asset.site.longitude) * Math.cos((asset.site.latitude * Math.PI) / 180)) * 111;
      assert.ok(km < 500, `${asset.id} is ${km.toFixed(0)} km from ${asset.site.id}`);
      if (km > 60) far++;
    }
    assert.ok(far <= 3, `${far} assets far from their site`);
  });

  it('uses only known sites, the experimenters site among them', () => {
    const ids = new Set(DEMO_SITES.map((s) => s.id));
    assert.ok(ids.has('experimenters') && ids.has('santander'));
    for (const asset of assets) assert.ok(ids.has(asset.site.id), asset.id);
  });

  it('keeps a few hundred assets at most reporting live', () => {
    const featured = assets.filter((a) => a.featured).length;
    assert.ok(featured >= 100 && featured <= 300, `${featured} featured`);
  });
});

describe('demo signals', () => {
  const lon = -3.8;
  const day = (signal: (t: number) => number, hour: number) => {
    // Mean over a week at that local hour (noise averages out).
    let sum = 0;
    for (let d = 0; d < 7; d++) {
      const utc = Date.parse('2026-03-02T00:00:00.000Z') + d * 24 * HOUR + (hour - lon / 15) * HOUR;
      sum += signal(utc);
    }
    return sum / 7;
  };

  it('is deterministic', () => {
    assert.equal(SIGNALS.temperature.value(42, NOW, lon), SIGNALS.temperature.value(42, NOW, lon));
    assert.notEqual(SIGNALS.temperature.value(42, NOW, lon), SIGNALS.temperature.value(43, NOW, lon));
  });

  it('follows daily cycles: warmer, brighter and busier by day', () => {
    const v = (key: keyof typeof SIGNALS) => (t: number) => Number(SIGNALS[key].value(7, t, lon));
    assert.ok(day(v('temperature'), 15) > day(v('temperature'), 4) + 4);
    assert.ok(day(v('illuminance'), 13) > 1000 && day(v('illuminance'), 2) < 50);
    assert.ok(day(v('noise'), 12) > day(v('noise'), 3) + 10);
    assert.ok(day(v('trafficIntensity'), 8.5) > 3 * day(v('trafficIntensity'), 3));
  });

  it('stays within plausible ranges', () => {
    for (let t = NOW; t < NOW + 7 * 24 * HOUR; t += 0.5 * HOUR) {
      for (const seed of [1, 2, 3, 99]) {
        const temp = SIGNALS.temperature.value(seed, t, lon) as number;
        assert.ok(temp > -5 && temp < 35);
        const rh = SIGNALS.humidity.value(seed, t, lon) as number;
        assert.ok(rh >= 20 && rh <= 100);
        assert.equal(typeof SIGNALS.parking.value(seed, t, lon), 'boolean');
        const battery = SIGNALS.battery.value(seed, t, lon) as number;
        assert.ok(battery > 20 && battery <= 100);
        const fill = SIGNALS.wasteFill.value(seed, t, lon) as number;
        assert.ok(fill >= 0 && fill <= 100);
      }
    }
  });

  it('reads the local hour from the longitude', () => {
    assert.equal(Math.round(localHour(Date.parse('2026-03-02T12:00:00.000Z'), 15)), 13);
    assert.equal(Math.round(localHour(Date.parse('2026-03-02T00:30:00.000Z'), -15) * 10) / 10, 23.5);
  });
});
