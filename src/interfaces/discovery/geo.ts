import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AssetList, DiscoveryError, FeatureCollections, GeoSearchQuery, ListingQuery, NearbyQuery, UrnParams,
} from '../../contracts/discovery.js';
import { bearerOptional } from '../../contracts/security.js';
import { parseListing } from '../../domain/asset-listing.js';
import { notFound } from '../../domain/errors.js';
import { GEO_TOTAL_CAP, hasShape, parseGeoSearch, parseNearby, type GeoArea } from '../../domain/geo-query.js';
import { visibleAssets } from '../../domain/visible-assets.js';
import { findSite } from '../../storage/repositories/sites.js';
import { visibleAsset, type DiscoveryDeps } from './deps.js';
import { pageOfAssets, TOTAL_HEADER, withTotal } from './listing.js';
import { assetRecord, featureCollections } from './views.js';

export const GEOJSON_TYPE = 'application/geojson';

const totalHeader = { [TOTAL_HEADER]: { type: 'integer', description: `How many assets match, over all pages; left out when more than ${GEO_TOTAL_CAP} match an area` } };
const errors = {
  400: { ...DiscoveryError, description: 'A parameter is not valid; the description names it' },
  404: { ...DiscoveryError, description: 'The city (site) or the asset does not exist' },
};
const geoResponse = {
  200: {
    description: 'One FeatureCollection per asset type; features are paged (page/per/offset) before grouping',
    headers: totalHeader,
    content: { [GEOJSON_TYPE]: { schema: FeatureCollections } },
  },
  ...errors,
};

/** Geographic views (spec part C): GeoJSON grouped by type, and assets near an asset. */
export function geoRoutes(scope: FastifyInstance, deps: DiscoveryDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = deps.ctx;

  const checkCity = async (area: GeoArea) => {
    if (area.city !== undefined && !(await findSite(store, area.city))) throw notFound(`The site '${area.city}' has not been found`);
  };

  const sendGeo = async (reply: FastifyReply, query: Static<typeof ListingQuery>, area: GeoArea | undefined) => {
    const listing = parseListing(query);
    if (area) await checkCity(area);
    const criteria = { visible: visibleAssets(reply.request.caller), selection: listing.selection, ...(area ? { area } : {}) };
    // Without an explicit order, an area is read in the spatial index's order: a page costs what it holds.
    const order = hasShape(area) && query.sort === undefined && query.order === undefined ? { spatial: true as const } : listing.ordering;
    const { items, total } = await pageOfAssets(store, criteria, listing, order, GEO_TOTAL_CAP);
    const collections = featureCollections(items);
    // Bytes, so that the media type stays exactly application/geojson (Fastify adds a charset to text).
    return withTotal(reply, total).header('content-type', GEOJSON_TYPE).send(Buffer.from(JSON.stringify(collections)));
  };

  const everything = {
    schema: {
      tags: ['discovery'], summary: 'Assets as GeoJSON, grouped by type', security: bearerOptional,
      description: 'The parameters of /assets apply; features are paged before grouping (per at most 1000), newest update first.',
      querystring: ListingQuery, response: geoResponse,
    },
  };
  app.get('/assets/geo', everything, (request, reply) => sendGeo(reply, request.query, undefined));
  app.get('/assets/geo/', { ...everything, schema: { ...everything.schema, hide: true } },
    (request, reply) => sendGeo(reply, request.query, undefined));

  app.get('/assets/geo/search', {
    schema: {
      tags: ['discovery'], summary: 'Geographic search, as GeoJSON grouped by type', security: bearerOptional,
      description: 'A circle (lat + long, or ip; radius in radians, or km with km=true; 1 km by default), a polygon '
        + '(query=polygon with points, [longitude, latitude] pairs) and city combine: an asset must satisfy every one given. '
        + 'The parameters of /assets apply too. Without sort or order, a circle or polygon is read in the spatial index\'s order.',
      querystring: GeoSearchQuery, response: geoResponse,
    },
  }, (request, reply) => sendGeo(reply, request.query, parseGeoSearch(request.query, deps.ctx.locateIp)));

  app.get('/assets/:urn/nearby', {
    schema: {
      tags: ['discovery'], summary: 'Assets near an asset, nearest first', security: bearerOptional,
      description: 'Within radius of the asset (radians, or km with km=true; 1 km by default), or inside the polygon that starts '
        + 'at the asset and continues with points; city restricts to a site. The asset itself is left out.',
      params: UrnParams, querystring: NearbyQuery,
      response: { 200: { ...AssetList, description: 'Assets, nearest first', headers: totalHeader }, ...errors },
    },
  }, async (request, reply) => {
    const listing = parseListing(request.query);
    // Parameters are judged before the asset is looked up: a bad one is a 400 whatever the asset.
    parseNearby(request.query, { latitude: 0, longitude: 0 });
    const asset = await visibleAsset(deps, request, request.params.urn);
    const area = parseNearby(request.query, { latitude: asset.latitude, longitude: asset.longitude });
    await checkCity(area);
    const criteria = { visible: visibleAssets(request.caller), selection: listing.selection, area, excludeId: asset.id };
    const { items, total } = await pageOfAssets(store, criteria, listing, { nearestTo: { latitude: asset.latitude, longitude: asset.longitude } }, GEO_TOTAL_CAP);
    const sites = await deps.sites.get(items.map((a) => a.site));
    return withTotal(reply, total).send(items.map((a) => assetRecord(a, sites.get(a.site), deps.links)));
  });
}
