import type { FastifyReply } from 'fastify';
import { TOTAL_HEADER } from '../../http/answer-cache.js';
import type { AssetListing, Page } from '../../domain/asset-listing.js';
import type { Store } from '../../storage/store.js';
import {
  assetDetailsBySeq, countAssets, countedByCounters, countedByPositions, listAssetDetails, listAssets, pageOfCityAssets, sampleAssets, type AssetCriteria, type AssetDetail, type AssetOrder, type AssetSummary,
} from '../../storage/repositories/discovery-assets.js';

export { TOTAL_HEADER };

/**
 * One page (or random sample) of what `criteria` select, and how many they
 * select in all (with `totalCap`, only when at most that many: counting a
 * dense area or a search costs a read of every match).
 */
export async function pageOfAssets(
  store: Store, criteria: AssetCriteria, listing: AssetListing, order: AssetOrder = listing.ordering, totalCap?: number,
): Promise<{ items: AssetSummary[]; total: number | undefined }> {
  if (listing.sample !== undefined) {
    const total = (await countAssets(store, criteria)) ?? 0;
    return { items: await sampleAssets(store, criteria, listing.sample, total), total };
  }
  if (totalCap !== undefined && 'spatial' in order) {
    const fromPositions = await pageOfCityAssets(store, criteria, listing.page, totalCap);
    if (fromPositions) return fromPositions;
  }
  if (totalCap === undefined || countedByCounters(criteria)) {
    const [items, total] = await Promise.all([listAssets(store, criteria, order, listing.page), countAssets(store, criteria)]);
    return { items, total };
  }
  if (countedByPositions(criteria)) {
    // The index of city positions counts an area without reading its assets: only the page is read from the table.
    const items = await listAssets(store, criteria, order, listing.page);
    return { items, total: totalOfPage(items, listing.page) ?? await countAssets(store, criteria, totalCap) };
  }
  // One read gives the page and the capped count: it goes on past the page up to the cap.
  const { limit, offset } = listing.page;
  const reach = Math.max(limit, totalCap + 1 - offset);
  const rows = await listAssets(store, criteria, order, { limit: reach, offset });
  const items = rows.slice(0, limit);
  if (rows.length === reach) return { items, total: undefined };
  // Past the end nothing says where the end was: count (up to the cap).
  if (rows.length === 0 && offset > 0) return { items, total: await countAssets(store, criteria, totalCap) };
  return { items, total: offset + rows.length };
}

/** As pageOfAssets, with each asset's attributes (NGSI v2 documents). */
export async function pageOfAssetDetails(store: Store, criteria: AssetCriteria, listing: AssetListing, totalCap?: number): Promise<{ items: AssetDetail[]; total: number | undefined }> {
  if (listing.sample !== undefined) {
    const sampled = await pageOfAssets(store, criteria, listing);
    return { items: await assetDetailsBySeq(store, sampled.items.map((a) => a.seq)), total: sampled.total };
  }
  if (totalCap === undefined) {
    const [items, total] = await Promise.all([listAssetDetails(store, criteria, listing.ordering, listing.page), countAssets(store, criteria)]);
    return { items, total };
  }
  // Attributes are heavy: the page is read with them, the count past it without.
  const items = await listAssetDetails(store, criteria, listing.ordering, listing.page);
  return { items, total: totalOfPage(items, listing.page) ?? await countAssets(store, criteria, totalCap) };
}

/** The total a page shows by itself: a page that is not full ends the list (unless it lies past the end). */
function totalOfPage(items: readonly unknown[], page: Page): number | undefined {
  return items.length < page.limit && (items.length > 0 || page.offset === 0) ? page.offset + items.length : undefined;
}

/** Sets X-Total-Count, unless the total was too costly to count (left out then). */
export function withTotal(reply: FastifyReply, total: number | undefined): FastifyReply {
  return total === undefined ? reply : reply.header(TOTAL_HEADER, String(total));
}
