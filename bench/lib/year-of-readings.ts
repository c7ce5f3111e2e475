import { buildApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { positionAttribute, timeInstant } from '../../src/demo/bodies.js';
import { SIGNALS } from '../../src/demo/signals.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createAsset, updateAsset } from '../../src/services/federation.js';

/**
 * One weather-station-like asset of Santander with a year of hourly temperatures, pushed through
 * the federation service (the demo's path) into `databaseUrl`, for the observatory's year-long chart.
 */

export const YEAR_ASSET = 'urn:oc:entity:santander:environmental:fixed:year-of-readings';
export const YEAR_ATTR = 'temperature:ambient';
const HOUR_MS = 3_600_000;
const HOURS = 365 * 24;

export async function loadYearOfReadings(databaseUrl: string, end = Date.now()): Promise<number> {
  const last = Math.floor(end / HOUR_MS) * HOUR_MS - HOUR_MS;
  const first = last - (HOURS - 1) * HOUR_MS;
  const clock = new ManualClock(first);
  const { app, ctx } = await buildApp({ config: { ...testConfig({ databaseUrl }), logLevel: 'warn' }, clock, migrate: false });
  const value = (t: number) => SIGNALS.temperature.value(17, t, -3.81);
  try {
    await createAsset(ctx, 'santander', {
      id: YEAR_ASSET, type: 'urn:oc:entityType:iotdevice',
      TimeInstant: timeInstant(first),
      position: positionAttribute('coords', 43.4647, -3.8044)[1],
      [YEAR_ATTR]: { type: `urn:oc:attributeType:${YEAR_ATTR}`, value: value(first) },
    });
    for (let t = first + HOUR_MS; t <= last; t += HOUR_MS) {
      clock.set(t);
      await updateAsset(ctx, 'santander', YEAR_ASSET, {
        TimeInstant: timeInstant(t),
        [YEAR_ATTR]: { type: `urn:oc:attributeType:${YEAR_ATTR}`, value: value(t) },
      });
    }
  } finally {
    await app.close();
  }
  return HOURS;
}
