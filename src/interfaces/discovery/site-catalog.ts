import type { Clock } from '../../domain/clock.js';
import { listSites, type SiteRecord } from '../../storage/repositories/sites.js';
import type { Store } from '../../storage/store.js';

/** How long site details (name, centre, country) are trusted before they are read again. */
const TTL_MS = 10_000;

/**
 * Every site, held in memory for rendering assets: a handful of rows that every
 * listing needs, so they are not read again for each request. A site that is
 * not there yet (added since) makes the next lookup read them all again.
 */
export class SiteCatalog {
  private sites: Map<string, SiteRecord> = new Map();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<Map<string, SiteRecord>> | undefined;

  constructor(private readonly store: Store, private readonly clock: Clock) {}

  private reload(): Promise<Map<string, SiteRecord>> {
    this.loading ??= listSites(this.store).then((rows) => {
      this.sites = new Map(rows.map((s) => [s.id, s]));
      this.loadedAt = this.clock.now();
      return this.sites;
    }).finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** The sites, fresh enough to render every one of `needed`. */
  async get(needed: Iterable<string> = []): Promise<ReadonlyMap<string, SiteRecord>> {
    const now = this.clock.now();
    if (now - this.loadedAt > TTL_MS || now < this.loadedAt) return this.reload();
    for (const id of needed) if (!this.sites.has(id)) return this.reload();
    return this.sites;
  }
}
