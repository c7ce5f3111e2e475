import { findSite, type SiteRecord } from '../storage/repositories/sites.js';
import type { Store } from '../storage/store.js';

/** How long a site's details are trusted before they are read again (`site add` may change its centre). */
const SITE_TTL_MS = 60_000;

interface Entry {
  site: SiteRecord;
  until: number;
}

const directories = new WeakMap<Store, Map<string, Entry>>();

/**
 * Sites known to the store, cached in-process: every federation request needs
 * its site, and sites are never removed, so a hit saves a read on the hot path.
 * Unknown sites are not cached (one may be added at any time). Quota checks do
 * not rely on this cache: they read the site inside the write transaction.
 */
export async function findSiteCached(store: Store, id: string, now: number): Promise<SiteRecord | undefined> {
  let directory = directories.get(store);
  if (!directory) directories.set(store, (directory = new Map()));
  const entry = directory.get(id);
  if (entry && entry.until > now) return entry.site;
  const site = await findSite(store, id);
  if (site) directory.set(id, { site, until: now + SITE_TTL_MS });
  else directory.delete(id);
  return site;
}
