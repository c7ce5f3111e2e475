import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  Category, CategoryList, DiscoveryError, ProviderParams, ServiceParams, Site, SiteList, SiteParams, SiteQuery,
} from '../../contracts/discovery.js';
import { bearerOptional } from '../../contracts/security.js';
import { onlineSince } from '../../domain/activity.js';
import { canonicalAssetType } from '../../domain/asset-listing.js';
import { notFound } from '../../domain/errors.js';
import { invalidParameter } from '../../domain/query-parameter.js';
import { EXPERIMENTERS_SITE } from '../../domain/visibility.js';
import { countAssetsBy, type Counted, type CountScope } from '../../storage/repositories/discovery-counts.js';
import { findSite, listSites } from '../../storage/repositories/sites.js';
import { type DiscoveryDeps } from './deps.js';
import { categoryRecord, siteRecord } from './views.js';

const badParameter = { 400: { ...DiscoveryError, description: 'A parameter is not valid; the description names it' } };
const missing = (what: string) => ({ 404: { ...DiscoveryError, description: `No such ${what}` } });

/** Services and providers are segments of city asset ids: the experimenters site has neither. */
const CITY_SITES_ONLY = [EXPERIMENTERS_SITE];

function typesOf(type: string | undefined): string[] | undefined {
  if (type === undefined) return undefined;
  if (type.trim() === '') throw invalidParameter('type', 'must not be empty');
  return [canonicalAssetType(type.trim())];
}

/** Sites, services and providers with their counts of assets, online and offline (spec part C). */
export function summaryRoutes(scope: FastifyInstance, deps: DiscoveryDeps): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { store, clock, config } = deps.ctx;
  const since = () => onlineSince(clock.now(), config.onlineWindowMs);

  app.get('/assets/sites', {
    schema: {
      tags: ['discovery'], summary: 'Sites, with their counts', security: bearerOptional,
      description: 'Every site with its assets, online and offline counts (optionally of one asset type).',
      querystring: SiteQuery, response: { 200: SiteList, ...badParameter },
    },
  }, async (request) => {
    const types = typesOf(request.query.type);
    const [sites, counts] = await Promise.all([listSites(store), countAssetsBy(store, ['site'], types ? { types } : {}, since())]);
    const bySite = new Map(counts.map((c) => [c.key.site, c]));
    return sites.map((s) => siteRecord(s, bySite.get(s.id), deps.links));
  });

  app.get('/assets/sites/:site', {
    schema: {
      tags: ['discovery'], summary: 'One site, with its counts', security: bearerOptional,
      description: 'The site with its assets, online and offline counts; with type, of that asset type only.',
      params: SiteParams, querystring: SiteQuery, response: { 200: Site, ...badParameter, ...missing('site') },
    },
  }, async (request) => {
    const types = typesOf(request.query.type);
    const site = await findSite(store, request.params.site);
    if (!site) throw notFound(`The site '${request.params.site}' has not been found`);
    const scope: CountScope = { site: site.id, ...(types ? { types } : {}) };
    const [count] = await countAssetsBy(store, [], scope, since());
    return siteRecord(site, count, deps.links);
  });

  /** Every value of `kind` with its counts per city. */
  const listCategories = async (kind: 'service' | 'provider') => {
    const [counts, sites] = await Promise.all([
      countAssetsBy(store, [kind, 'site'], { excludeSites: CITY_SITES_ONLY }, since()),
      deps.sites.get(),
    ]);
    const byValue = new Map<string, Counted[]>();
    for (const c of counts) {
      const value = c.key[kind] ?? '';
      if (value === '') continue;
      const list = byValue.get(value) ?? [];
      list.push(c);
      byValue.set(value, list);
    }
    const missingSites = counts.map((c) => c.key.site ?? '').filter((s) => !sites.has(s));
    const fresh = missingSites.length > 0 ? await deps.sites.get(missingSites) : sites;
    return [...byValue.keys()].sort().map((value) => categoryRecord(kind, value, byValue.get(value) ?? [], fresh, deps.links));
  };

  const oneCategory = async (kind: 'service' | 'provider', value: string) => {
    const perSite = await countAssetsBy(store, ['site'], { [kind]: value, excludeSites: CITY_SITES_ONLY }, since());
    if (value === '' || perSite.length === 0) throw notFound(`The ${kind} '${value}' has not been found`);
    const sites = await deps.sites.get(perSite.map((c) => c.key.site ?? ''));
    return categoryRecord(kind, value, perSite, sites, deps.links);
  };

  app.get('/assets/services', {
    schema: {
      tags: ['discovery'], summary: 'Services, with their counts per city', security: bearerOptional,
      response: { 200: CategoryList },
    },
  }, () => listCategories('service'));

  const serviceSchema = {
    tags: ['discovery'], summary: 'One service, with its counts per city', security: bearerOptional,
    params: ServiceParams, response: { 200: Category, ...missing('service') },
  };
  app.get('/assets/service/:service', { schema: serviceSchema },
    (request) => oneCategory('service', request.params.service));
  // The path the original platform served, beside the one the spec gives.
  app.get('/assets/services/:service', { schema: { ...serviceSchema, hide: true } },
    (request) => oneCategory('service', request.params.service));

  app.get('/assets/providers', {
    schema: {
      tags: ['discovery'], summary: 'Providers, with their counts per city', security: bearerOptional,
      response: { 200: CategoryList },
    },
  }, () => listCategories('provider'));

  app.get('/assets/providers/:provider', {
    schema: {
      tags: ['discovery'], summary: 'One provider, with its counts per city', security: bearerOptional,
      params: ProviderParams, response: { 200: Category, ...missing('provider') },
    },
  }, (request) => oneCategory('provider', request.params.provider));
}
