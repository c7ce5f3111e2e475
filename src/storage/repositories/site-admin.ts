import type { Store } from '../store.js';
import type { SiteRecord } from './sites.js';

/**
 * What operators do to sites from the command line: create without touching an existing one,
 * change some details, list, remove. Plain statements that run unchanged on both stores.
 */

/** A site as operators create it. */
export type NewSite = SiteRecord;

/** The details `opencity site update` may change; an absent one is kept. */
export type SiteChanges = Partial<Omit<NewSite, 'id' | 'type'>>;

export interface SiteSummary extends NewSite {
  createdAt: number;
  liveAssets: number;
}

/** Creates the site; false, changing nothing, when a site has that id already. */
export async function createSiteOnly(store: Store, site: NewSite, now: number): Promise<boolean> {
  return store.writes.run(async (trx) => {
    const result = await trx.insertInto('sites').values({
      id: site.id, name: site.name, type: site.type, latitude: site.latitude, longitude: site.longitude,
      country_code: site.countryCode, country: site.country, city: site.city, quota: site.quota, created_at: now,
    }).onConflict((oc) => oc.column('id').doNothing()).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  });
}

/** Changes only the given details; false when there is no such site. */
export async function updateSiteDetails(store: Store, id: string, changes: SiteChanges): Promise<boolean> {
  const set: Record<string, string | number | null> = {};
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.latitude !== undefined) set.latitude = changes.latitude;
  if (changes.longitude !== undefined) set.longitude = changes.longitude;
  if (changes.countryCode !== undefined) set.country_code = changes.countryCode;
  if (changes.country !== undefined) set.country = changes.country;
  if (changes.city !== undefined) set.city = changes.city;
  if (changes.quota !== undefined) set.quota = changes.quota;
  return store.writes.run(async (trx) => {
    const found = await trx.selectFrom('sites').select('id').where('id', '=', id).executeTakeFirst();
    if (!found) return false;
    if (Object.keys(set).length > 0) await trx.updateTable('sites').set(set).where('id', '=', id).execute();
    return true;
  });
}

/** Every site with its number of live assets, by id. */
export async function listSiteSummaries(store: Store): Promise<SiteSummary[]> {
  const rows = await store.read.selectFrom('sites')
    .leftJoin('assets', (join) => join.onRef('assets.site', '=', 'sites.id').on('assets.deleted_at', 'is', null))
    .select((eb) => [
      'sites.id', 'sites.name', 'sites.type', 'sites.latitude', 'sites.longitude', 'sites.country_code', 'sites.country',
      'sites.city', 'sites.quota', 'sites.created_at', eb.fn.count<string | number | bigint>('assets.seq').as('live'),
    ])
    .groupBy(['sites.id', 'sites.name', 'sites.type', 'sites.latitude', 'sites.longitude', 'sites.country_code', 'sites.country', 'sites.city', 'sites.quota', 'sites.created_at'])
    .orderBy('sites.id')
    .execute();
  return rows.map((r) => ({
    id: r.id, name: r.name, type: r.type, latitude: Number(r.latitude), longitude: Number(r.longitude), countryCode: r.country_code,
    country: r.country, city: r.city, quota: r.quota === null ? null : Number(r.quota), createdAt: Number(r.created_at), liveAssets: Number(r.live),
  }));
}

/** The ids of a site's live assets, in id order. */
export async function liveAssetIdsOfSite(store: Store, site: string): Promise<string[]> {
  const rows = await store.read.selectFrom('assets').select('id').where('site', '=', site).where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => r.id);
}

export type SiteRemoval = 'removed' | 'no-site' | 'has-assets';

/**
 * Removes the site when it has no live asset; its deleted assets, their readings and the change
 * log stay, so its history can still be read.
 */
export async function removeSiteRecord(store: Store, id: string): Promise<SiteRemoval> {
  return store.writes.run(async (trx): Promise<SiteRemoval> => {
    const found = await trx.selectFrom('sites').select('id').where('id', '=', id).executeTakeFirst();
    if (!found) return 'no-site';
    const live = await trx.selectFrom('assets').select('id').where('site', '=', id).where('deleted_at', 'is', null).limit(1).executeTakeFirst();
    if (live) return 'has-assets';
    await trx.deleteFrom('sites').where('id', '=', id).execute();
    return 'removed';
  });
}
