import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * A site's live assets in creation order, all of them or of one type: the
 * order NGSI v2 lists entities in (GET /v2/entities, POST /v2/op/query). Without
 * them a page deep into a big site reads and sorts every one of its assets, or
 * fetches each skipped row to learn its site; with them, the rows a page skips
 * and the counts of a type are read from the index alone. Partial (live assets
 * only), so that deleted assets cost nothing here.
 */
export const liveAssetsBySite: StoreMigration = {
  name: '1200-live-assets-by-site',
  async sqlite(db) {
    // seq is the rowid, which every SQLite index ends with: these are ordered by it within a site (and type).
    await sql`create index assets_live_site on assets (site) where deleted_at is null`.execute(db);
    await sql`create index assets_live_site_type on assets (site, type) where deleted_at is null`.execute(db);
  },
  async postgres(db) {
    await sql`create index assets_live_site on assets (site, seq) where deleted_at is null`.execute(db);
    await sql`create index assets_live_site_type on assets (site, type, seq) where deleted_at is null`.execute(db);
  },
};
