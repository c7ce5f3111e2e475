import { sql } from 'kysely';
import type { StoreMigration } from './index.js';

/**
 * An index of the positions of live city assets (not deleted, not of the
 * experimenters' site) that answers "which of them lie in this circle, and how
 * many" by itself: what a map asks of every area, and what an anonymous caller
 * sees.
 * Counting through the assets index read a table row for every match; the
 * table is spread over the whole file, so each match was a random read.
 * - SQLite: an R*Tree of its own, kept by the write path; the R*Tree of every
 *   asset gives way to it and to one of the live experimenters' assets, so
 *   that each live asset is indexed once. Its boxes are the positions rounded
 *   outwards to single precision (under 2 m): only matches within a few metres
 *   of the edge need their row.
 * - PostgreSQL: a partial GiST index of the exact positions (and the seqs,
 *   to find the rows of a page); the same conditions in a query let it scan
 *   the index alone.
 */
export const cityPositions: StoreMigration = {
  name: '0600-city-positions',
  async postgres(db) {
    await sql`create index assets_city_positions on assets using gist (point(longitude, latitude)) include (latitude, longitude, seq)
      where deleted_at is null and site <> 'experimenters'`.execute(db);
  },
  async sqlite(db) {
    // Each live asset in one tree: city assets in one, the experimenters' in the other, so that a write indexes once.
    await sql`create virtual table city_positions using rtree(id, min_lon, max_lon, min_lat, max_lat)`.execute(db);
    await sql`insert into city_positions (id, min_lon, max_lon, min_lat, max_lat)
      select seq, longitude, longitude, latitude, latitude from assets where deleted_at is null and site <> 'experimenters'`.execute(db);
    await sql`create virtual table experiment_positions using rtree(id, min_lon, max_lon, min_lat, max_lat)`.execute(db);
    await sql`insert into experiment_positions (id, min_lon, max_lon, min_lat, max_lat)
      select seq, longitude, longitude, latitude, latitude from assets where deleted_at is null and site = 'experimenters'`.execute(db);
    await sql`drop table assets_rtree`.execute(db);
  },
};
