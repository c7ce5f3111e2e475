import type { Command } from 'commander';
import { buildApp } from '../../app.js';
import { registerClient } from '../../identity/clients.js';
import { deleteAsset } from '../../services/federation.js';
import { findClient } from '../../storage/repositories/principals.js';
import { parseRetention } from '../../config.js';
import { setSiteRetention } from '../../storage/repositories/history-retention.js';
import { findSite } from '../../storage/repositories/sites.js';
import { removeClientRecord } from '../../storage/repositories/principal-admin.js';
import {
  createSiteOnly, listSiteSummaries, liveAssetIdsOfSite, removeSiteRecord, updateSiteDetails, type SiteChanges,
} from '../../storage/repositories/site-admin.js';
import { clock, fail, print, withStore } from '../runtime.js';

export const SITE_ID = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

function number(name: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(n) || n < min || n > max) fail(`--${name} must be a number from ${min} to ${max} (got ${value})`);
  return n;
}

function quotaOf(value: string | undefined): number | null {
  if (value === undefined) return null;
  const quota = number('quota', value, 0, Number.MAX_SAFE_INTEGER);
  if (!Number.isInteger(quota)) fail(`--quota must be a whole number (got ${value})`);
  return quota;
}

/** A site's retention as given (`90d`, `forever`), checked by the grammar of HISTORY_RETENTION. */
function retentionOf(value: string): string {
  try {
    parseRetention(value);
  } catch {
    fail(`--retention must be forever or a duration such as 90d, 720h or 30m (got ${value})`);
  }
  return value;
}

function checkSiteId(id: string): void {
  if (!SITE_ID.test(id)) fail(`invalid site id: ${id} (letters, digits, _ and -; no colon)`);
}

interface SiteOptions { name?: string; lat?: string; lon?: string; countryCode?: string; country?: string; city?: string; quota?: string; retention?: string; json?: boolean }

export function siteCommands(program: Command): void {
  const site = program.command('site').description('manage sites');
  site.command('add <site>')
    .description('create a site and its client ocsite-<site> (role ocsite); print its credentials once; refused when the site exists')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--lat <latitude>', 'latitude of the site centre')
    .requiredOption('--lon <longitude>', 'longitude of the site centre')
    .option('--country-code <code>', 'ISO country code')
    .option('--country <country>', 'country name')
    .option('--city <city>', 'city name (default: the name)')
    .option('--quota <n>', 'maximum number of assets (default SITE_QUOTA)')
    .option('--retention <duration>', "how long the site's raw readings are kept: 90d, 720h, … or forever (default HISTORY_RETENTION)")
    .option('--json', 'print {"client_id","secret"}')
    .action(async (id: string, o: SiteOptions & { name: string; lat: string; lon: string }) => {
      checkSiteId(id);
      const latitude = number('lat', o.lat, -90, 90);
      const longitude = number('lon', o.lon, -180, 180);
      const quota = quotaOf(o.quota);
      const retention = o.retention === undefined ? null : retentionOf(o.retention);
      const clientId = `ocsite-${id}`;
      await withStore(async (store) => {
        if (await findSite(store, id)) fail(`site ${id} already exists; nothing changed (opencity site update ${id} changes it)`, 1);
        if (await findClient(store, clientId)) fail(`client ${clientId} already exists; nothing changed (opencity client reset-secret ${clientId} gives it a new secret)`, 1);
        const created = await createSiteOnly(store, {
          id, name: o.name, type: 'city', latitude, longitude,
          countryCode: o.countryCode ?? null, country: o.country ?? null, city: o.city ?? o.name, quota,
        }, clock.now());
        if (!created) fail(`site ${id} already exists; nothing changed (opencity site update ${id} changes it)`, 1);
        // Set (or cleared, should a former site of that id have left one) with the site.
        await setSiteRetention(store, id, retention);
        const creds = await registerClient(store, clock, { clientId, name: `Site ${o.name}`, roles: [{ role: 'ocsite', experiment: null }] });
        print(!!o.json, creds, `site ${id} created\nclient_id: ${creds.client_id}\nsecret:    ${creds.secret}\n(the secret is not shown again)`);
      });
    });

  site.command('update <site>')
    .description('change the details given, keep the others')
    .option('--name <name>', 'display name')
    .option('--lat <latitude>', 'latitude of the site centre')
    .option('--lon <longitude>', 'longitude of the site centre')
    .option('--country-code <code>', 'ISO country code')
    .option('--country <country>', 'country name')
    .option('--city <city>', 'city name')
    .option('--quota <n>', 'maximum number of assets')
    .option('--json', 'print the site as it is now')
    .action(async (id: string, o: SiteOptions) => {
      checkSiteId(id);
      const changes: SiteChanges = {
        name: o.name, countryCode: o.countryCode, country: o.country, city: o.city,
        latitude: o.lat === undefined ? undefined : number('lat', o.lat, -90, 90),
        longitude: o.lon === undefined ? undefined : number('lon', o.lon, -180, 180),
        quota: o.quota === undefined ? undefined : quotaOf(o.quota),
      };
      if (Object.values(changes).every((v) => v === undefined)) fail('nothing to change: give at least one of --name, --lat, --lon, --country-code, --country, --city, --quota');
      await withStore(async (store) => {
        if (!(await updateSiteDetails(store, id, changes))) fail(`no site ${id}`, 1);
        const now = (await listSiteSummaries(store)).find((s) => s.id === id);
        print(!!o.json, now, `site ${id} updated`);
      });
    });

  site.command('set-retention <site> <retention>')
    .description("how long the site's raw readings are kept: 90d, 720h, … or forever; default follows HISTORY_RETENTION again (rollups stay)")
    .option('--json', 'print {"site","retention"}')
    .action(async (id: string, value: string, o: { json?: boolean }) => {
      checkSiteId(id);
      const retention = value === 'default' ? null : retentionOf(value);
      await withStore(async (store) => {
        if (!(await setSiteRetention(store, id, retention))) fail(`no site ${id}`, 1);
        print(!!o.json, { site: id, retention }, `site ${id} keeps its raw readings ${retention === null ? 'as HISTORY_RETENTION says' : retention === 'forever' ? 'forever' : `for ${retention}`}`);
      });
    });

  site.command('list')
    .description('list the sites with their number of live assets')
    .option('--json', 'print an array of sites')
    .action(async (o: { json?: boolean }) => {
      await withStore(async (store) => {
        const sites = await listSiteSummaries(store);
        print(!!o.json, sites, sites.length === 0 ? 'no sites' : sites.map((s) =>
          `${s.id}  ${s.name}  (${s.latitude}, ${s.longitude})  ${s.liveAssets} assets${s.quota === null ? '' : ` of ${s.quota}`}`).join('\n'));
      });
    });

  site.command('remove <site>')
    .description('remove a site and its client ocsite-<site>; refused while it has assets, unless --delete-assets (their history is kept)')
    .option('--delete-assets', "delete the site's assets first, as a federation delete does")
    .option('--json', 'print {"site","deletedAssets","clientRemoved"}')
    .action(async (id: string, o: { deleteAssets?: boolean; json?: boolean }) => {
      checkSiteId(id);
      await withStore(async (store, config) => {
        const assets = await liveAssetIdsOfSite(store, id);
        if (assets.length > 0 && !o.deleteAssets) {
          fail(`site ${id} has ${assets.length} assets; nothing removed (--delete-assets deletes them first; their history is kept)`, 1);
        }
        if (assets.length > 0) {
          // The federation's own delete, so that the change log, counters and activity follow as for a site's request.
          const { app, ctx } = await buildApp({ config: { ...config, logLevel: 'warn', logFormat: 'json' }, store, clock, migrate: false });
          try {
            for (const asset of assets) await deleteAsset(ctx, id, asset);
          } finally {
            await app.close();
          }
        }
        const outcome = await removeSiteRecord(store, id);
        if (outcome === 'no-site') fail(`no site ${id}`, 1);
        if (outcome === 'has-assets') fail(`site ${id} received new assets meanwhile; nothing removed`, 1);
        const clientRemoved = await removeClientRecord(store, `ocsite-${id}`);
        print(!!o.json, { site: id, deletedAssets: assets.length, clientRemoved },
          `site ${id} removed${assets.length > 0 ? ` (${assets.length} assets deleted; their history is kept)` : ''}${clientRemoved ? `; client ocsite-${id} removed` : ''}`);
      });
    });
}
