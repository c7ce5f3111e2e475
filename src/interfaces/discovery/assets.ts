import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  AssetData, AssetDataNgsi, AssetList, AssetNgsiList, AssetWithData, DiscoveryError, ExperimentParams, ExperimenterParams,
  HistoryQuery, ListingQuery, NgsiListingQuery, SearchQuery, UrnParams,
} from '../../contracts/discovery.js';
import { bearerOptional } from '../../contracts/security.js';
import { parseListing, parsePage } from '../../domain/asset-listing.js';
import { parseSearchTerms, SEARCH_TOTAL_CAP } from '../../domain/search-terms.js';
import { visibleAssets } from '../../domain/visible-assets.js';
import { recentReadings, type AssetCriteria } from '../../storage/repositories/discovery-assets.js';
import { visibleAsset, type DiscoveryDeps } from './deps.js';
import { pageOfAssetDetails, pageOfAssets, TOTAL_HEADER, withTotal } from './listing.js';
import { assetData, assetDataNgsi, assetRecord, assetWithData, ngsiDocument } from './views.js';

const errors = {
  400: { ...DiscoveryError, description: 'A parameter is not valid; the description names it' },
};
const notFound = { 404: { ...DiscoveryError, description: 'No such asset (or not visible to the caller)' } };
const totalHeader = { [TOTAL_HEADER]: { type: 'integer', description: 'How many assets match, over all pages' } };
const listResponse = (schema: object, description: string) => ({ 200: { ...schema, description, headers: totalHeader }, ...errors });

/** Asset listings, single assets and their data (spec part C, /assets…). */
export function assetRoutes(scope: FastifyInstance, deps: DiscoveryDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = deps.ctx;

  /** Renders a page of assets with their sites. */
  const render = async (items: Parameters<typeof assetRecord>[0][]) => {
    const sites = await deps.sites.get(items.map((a) => a.site));
    return items.map((a) => assetRecord(a, sites.get(a.site), deps.links));
  };

  app.get('/assets', {
    schema: {
      tags: ['discovery'], summary: 'List assets', security: bearerOptional,
      description: 'Filtered, sorted and paged; X-Total-Count holds the total. Experiment assets appear only to their experimenter, participants and administrators.',
      querystring: ListingQuery, response: listResponse(AssetList, 'Assets'),
    },
  }, async (request, reply) => {
    const listing = parseListing(request.query);
    const criteria: AssetCriteria = { visible: visibleAssets(request.caller), selection: listing.selection };
    const { items, total } = await pageOfAssets(store, criteria, listing);
    return withTotal(reply, total).send(await render(items));
  });

  app.get('/assets/ngsiv2', {
    schema: {
      tags: ['discovery'], summary: 'List assets as NGSI v2 documents', security: bearerOptional,
      description: 'The parameters of /assets, plus query (metadata search). Each item is {doc: {id, type, …attributes}}.',
      querystring: NgsiListingQuery, response: listResponse(AssetNgsiList, 'AssetNSGI records'),
    },
  }, async (request, reply) => {
    const listing = parseListing(request.query);
    const criteria: AssetCriteria = { visible: visibleAssets(request.caller), selection: listing.selection };
    if (request.query.query !== undefined) criteria.terms = parseSearchTerms(request.query.query);
    const { items, total } = await pageOfAssetDetails(store, criteria, listing, criteria.terms ? SEARCH_TOTAL_CAP : undefined);
    return withTotal(reply, total).send(items.map(ngsiDocument));
  });

  app.get('/assets/metadata/search', {
    schema: {
      tags: ['discovery'], summary: 'Search assets by words', security: bearerOptional,
      description: `Every word of query (separated by spaces or +) must occur, case-insensitively, in the id, type, site, an attribute name or a metadata value. Paged like /assets; X-Total-Count is left out when more than ${SEARCH_TOTAL_CAP} match.`,
      querystring: SearchQuery, response: listResponse(AssetList, 'Matching assets'),
    },
  }, async (request, reply) => {
    const terms = parseSearchTerms(request.query.query);
    const listing = parseListing(request.query);
    const criteria: AssetCriteria = { visible: visibleAssets(request.caller), selection: listing.selection, terms };
    const { items, total } = await pageOfAssets(store, criteria, listing, listing.ordering, SEARCH_TOTAL_CAP);
    return withTotal(reply, total).send(await render(items));
  });

  app.get('/assets/experiments/:experimentsID', {
    schema: {
      tags: ['discovery'], summary: 'Assets of an experiment', security: bearerOptional,
      description: 'Visible only to the experimenter, the experiment\'s participants and administrators; to anyone else the list is empty.',
      params: ExperimentParams, querystring: ListingQuery, response: listResponse(AssetList, 'Assets of the experiment'),
    },
  }, async (request, reply) => {
    const listing = parseListing(request.query);
    const selection = { ...listing.selection, filters: { ...listing.selection.filters } };
    const only = request.params.experimentsID;
    selection.filters.experiment = selection.filters.experiment ? selection.filters.experiment.filter((e) => e === only) : [only];
    const { items, total } = await pageOfAssets(store, { visible: visibleAssets(request.caller), selection }, listing);
    return withTotal(reply, total).send(await render(items));
  });

  app.get('/assets/experimenters/:experimenterID', {
    schema: {
      tags: ['discovery'], summary: 'Assets of an experimenter', security: bearerOptional,
      description: 'The experimenter sees every one; participants see those of their experiments; administrators all; anyone else none.',
      params: ExperimenterParams, querystring: ListingQuery, response: listResponse(AssetList, 'Assets of the experimenter'),
    },
  }, async (request, reply) => {
    const listing = parseListing(request.query);
    const criteria: AssetCriteria = { visible: visibleAssets(request.caller), selection: listing.selection, experimenter: request.params.experimenterID };
    const { items, total } = await pageOfAssets(store, criteria, listing);
    return withTotal(reply, total).send(await render(items));
  });

  app.get('/assets/:urn', {
    schema: {
      tags: ['discovery'], summary: 'One asset', security: bearerOptional,
      description: 'The asset, with its current attributes under data.attributes (types: the names; data: each by name).',
      params: UrnParams, response: { 200: AssetWithData, ...notFound },
    },
  }, async (request) => {
    const asset = await visibleAsset(deps, request, request.params.urn);
    const sites = await deps.sites.get([asset.site]);
    return assetWithData(asset, sites.get(asset.site), deps.links);
  });

  app.get('/assets/:urn/ngsiv2', {
    schema: {
      tags: ['discovery'], summary: 'One asset as an NGSI v2 document', security: bearerOptional,
      params: UrnParams, response: { 200: { ...AssetNgsiList, description: 'A list holding the asset' }, ...notFound },
    },
  }, async (request) => [ngsiDocument(await visibleAsset(deps, request, request.params.urn))]);

  app.get('/assets/:urn/data', {
    schema: {
      tags: ['discovery'], summary: 'An asset\'s data (NGSI 9/10 attributes)', security: bearerOptional,
      params: UrnParams, response: { 200: AssetData, ...notFound },
    },
  }, async (request) => {
    const asset = await visibleAsset(deps, request, request.params.urn);
    const sites = await deps.sites.get([asset.site]);
    return assetData(asset, sites.get(asset.site), deps.links);
  });

  app.get('/assets/:urn/data/ngsiv2', {
    schema: {
      tags: ['discovery'], summary: 'An asset\'s data, NGSI v2 style: history and current state', security: bearerOptional,
      description: 'historic: its readings, newest first, paged with page/per/offset; observations: its current attributes.',
      params: UrnParams, querystring: HistoryQuery, response: { 200: AssetDataNgsi, ...errors, ...notFound },
    },
  }, async (request) => {
    const page = parsePage(request.query);
    const asset = await visibleAsset(deps, request, request.params.urn);
    const [sites, readings] = await Promise.all([deps.sites.get([asset.site]), recentReadings(store, asset.seq, page)]);
    return assetDataNgsi(asset, sites.get(asset.site), readings);
  });
}
