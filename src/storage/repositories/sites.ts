import type { Store } from '../store.js';

export interface SiteRecord {
  id: string;
  name: string;
  type: string;
  latitude: number;
  longitude: number;
  countryCode: string | null;
  country: string | null;
  city: string | null;
  quota: number | null;
}

type SiteRow = { id: string; name: string; type: string; latitude: number; longitude: number; country_code: string | null; country: string | null; city: string | null; quota: number | null };

const toSite = (r: SiteRow): SiteRecord => ({
  id: r.id, name: r.name, type: r.type, latitude: r.latitude, longitude: r.longitude,
  countryCode: r.country_code, country: r.country, city: r.city, quota: r.quota,
});

export async function findSite(store: Store, id: string): Promise<SiteRecord | undefined> {
  const row = await store.read.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toSite(row);
}

export async function listSites(store: Store): Promise<SiteRecord[]> {
  const rows = await store.read.selectFrom('sites').selectAll().orderBy('id').execute();
  return rows.map(toSite);
}

/** Creates the site, or updates its details when it exists (idempotent). */
export async function upsertSite(store: Store, site: SiteRecord, now: number): Promise<void> {
  const values = {
    name: site.name, type: site.type, latitude: site.latitude, longitude: site.longitude,
    country_code: site.countryCode, country: site.country, city: site.city, quota: site.quota,
  };
  await store.writes.run((trx) => trx.insertInto('sites').values({ id: site.id, created_at: now, ...values })
    .onConflict((oc) => oc.column('id').doUpdateSet(values)).execute());
}
