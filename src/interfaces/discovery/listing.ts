import type { FastifyReply } from 'fastify';
import type { AssetListing } from '../../domain/asset-listing.js';
import type { Store } from '../../storage/store.js';
import {
  assetDetailsBySeq, countAssets, listAssetDetails, listAssets, sampleAssets, type AssetCriteria, type AssetDetail, type AssetOrder, type AssetSummary,
} from '../../storage/repositories/discovery-assets.js';

export const TOTAL_HEADER = 'x-total-count';

/**
 * One page (or random sample) of what `criteria` select, and how many they
 * select in all; the count and the page are read at the same time.
 */
export async function pageOfAssets(
  store: Store, criteria: AssetCriteria, listing: AssetListing, order: AssetOrder = listing.ordering, totalCap?: number,
): Promise<{ items: AssetSummary[]; total: number | undefined }> {
  if (listing.sample !== undefined) {
    const total = (await countAssets(store, criteria)) ?? 0;
    return { items: await sampleAssets(store, criteria, listing.sample, total), total };
  }
  if (totalCap === undefined) {
    const [items, total] = await Promise.all([listAssets(store, criteria, order, listing.page), countAssets(store, criteria)]);
    return { items, total };
  }
  // A capped count is costly in itself: a page that is not full ends the list, and gives the total for free.
  const items = await listAssets(store, criteria, order, listing.page);
  if (items.length < listing.page.limit && (items.length > 0 || listing.page.offset === 0)) return { items, total: listing.page.offset + items.length };
  return { items, total: await countAssets(store, criteria, totalCap) };
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
  const items = await listAssetDetails(store, criteria, listing.ordering, listing.page);
  if (items.length < listing.page.limit && (items.length > 0 || listing.page.offset === 0)) return { items, total: listing.page.offset + items.length };
  return { items, total: await countAssets(store, criteria, totalCap) };
}

/** Sets X-Total-Count, unless the total was too costly to count (left out then). */
export function withTotal(reply: FastifyReply, total: number | undefined): FastifyReply {
  return total === undefined ? reply : reply.header(TOTAL_HEADER, String(total));
}
