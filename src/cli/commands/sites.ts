import type { Command } from 'commander';
import { registerClient } from '../../identity/clients.js';
import { findClient } from '../../storage/repositories/principals.js';
import { upsertSite } from '../../storage/repositories/sites.js';
import { clock, fail, print, withStore } from '../runtime.js';

export const SITE_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

function number(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n < min || n > max) fail(`--${name} must be a number from ${min} to ${max} (got ${value})`);
  return n;
}

export function siteCommands(program: Command): void {
  const site = program.command('site').description('manage sites');
  site.command('add <site>')
    .description('create a site and its client ocsite-<site> (role ocsite); print its credentials once')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--lat <latitude>', 'latitude of the site centre')
    .requiredOption('--lon <longitude>', 'longitude of the site centre')
    .option('--country-code <code>', 'ISO country code')
    .option('--country <country>', 'country name')
    .option('--city <city>', 'city name')
    .option('--quota <n>', 'maximum number of assets (default SITE_QUOTA)')
    .option('--json', 'print {"client_id","secret"}')
    .action(async (id: string, o: { name: string; lat: string; lon: string; countryCode?: string; country?: string; city?: string; quota?: string; json?: boolean }) => {
      if (!SITE_ID.test(id)) fail(`invalid site id: ${id} (letters, digits, _ and -; no colon)`);
      const latitude = number('lat', o.lat, -90, 90);
      const longitude = number('lon', o.lon, -180, 180);
      const quota = o.quota === undefined ? null : number('quota', o.quota, 0, Number.MAX_SAFE_INTEGER);
      if (quota !== null && !Number.isInteger(quota)) fail('--quota must be a whole number');
      const clientId = `ocsite-${id}`;
      await withStore(async (store) => {
        await upsertSite(store, {
          id, name: o.name, type: 'city', latitude, longitude,
          countryCode: o.countryCode ?? null, country: o.country ?? null, city: o.city ?? o.name, quota,
        }, clock.now());
        if (await findClient(store, clientId)) fail(`site ${id} updated; its client ${clientId} already exists (its secret was shown when it was created)`, 1);
        const creds = await registerClient(store, clock, { clientId, name: `Site ${o.name}`, roles: [{ role: 'ocsite', experiment: null }] });
        print(!!o.json, creds, `site ${id} created\nclient_id: ${creds.client_id}\nsecret:    ${creds.secret}\n(the secret is not shown again)`);
      });
    });
}
