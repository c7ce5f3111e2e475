import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { visibleOrNotFound } from '../../domain/visibility.js';
import { findAssetDetail, type AssetDetail } from '../../storage/repositories/discovery-assets.js';
import type { SiteCatalog } from './site-catalog.js';
import type { Links } from './views.js';

/** What every discovery route is built from. */
export interface DiscoveryDeps {
  ctx: AppContext;
  sites: SiteCatalog;
  links: Links;
}

/**
 * The asset `urn`, when the caller may see it. Unknown and invisible (another
 * experiment's asset) look alike, so a private asset's existence is not revealed.
 */
export async function visibleAsset(deps: DiscoveryDeps, request: FastifyRequest, urn: string): Promise<AssetDetail> {
  return visibleOrNotFound(request.caller, urn, await findAssetDetail(deps.ctx.store, urn));
}
