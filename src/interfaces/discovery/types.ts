import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AssetType, AssetTypeList, DiscoveryError, TypeParams } from '../../contracts/discovery.js';
import { canonicalAssetType } from '../../domain/asset-listing.js';
import { notFound } from '../../domain/errors.js';
import { findAssetType, listAssetTypes } from '../../storage/repositories/discovery-types.js';
import type { DiscoveryDeps } from './deps.js';

/** The asset-type dictionary (spec part C, /types). */
export function typeRoutes(scope: FastifyInstance, deps: DiscoveryDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = deps.ctx;

  app.get('/types', {
    schema: { tags: ['discovery'], summary: 'Asset types', description: 'Every known asset type, by URN.', response: { 200: AssetTypeList } },
  }, () => listAssetTypes(store));

  app.get('/types/:types', {
    schema: {
      tags: ['discovery'], summary: 'One asset type',
      description: 'By full URN (urn:oc:entityType:iotdevice) or short name (iotdevice).',
      params: TypeParams, response: { 200: AssetType, 404: { ...DiscoveryError, description: 'No such asset type' } },
    },
  }, async (request) => {
    const wanted = request.params.types;
    const found = await findAssetType(store, canonicalAssetType(wanted));
    if (!found) throw notFound(`The asset type '${wanted}' has not been found`);
    return found;
  });
}
