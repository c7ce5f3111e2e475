import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { notFound } from '../../domain/errors.js';
import { visibleOrNotFound } from '../../domain/visibility.js';
import { findHistoryAsset, type HistoryAsset } from '../../storage/repositories/readings.js';

/**
 * The asset a history request is about: unknown, not visible to the caller
 * (experiment assets), or of another type than the one asked for all look the
 * same, so that a private asset's existence is not revealed. When the request
 * names an attribute, one not recorded for the asset is a 404 too.
 */
export async function visibleAsset(
  ctx: AppContext, request: FastifyRequest, assetId: string, type: string | undefined, attr?: string,
): Promise<HistoryAsset> {
  const asset = await findHistoryAsset(ctx.store, assetId, attr);
  const visible = visibleOrNotFound(request.caller, assetId, asset && (type === undefined || type === asset.type) ? asset : undefined);
  if (attr !== undefined && !asset?.records) throw notFound(`The attribute '${attr}' is not recorded for the asset '${assetId}'`);
  return visible;
}
