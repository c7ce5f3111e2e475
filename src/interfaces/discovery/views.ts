import type { Static } from '@sinclair/typebox';
import type {
  Asset, AssetData, AssetDataNgsi, AssetNgsi, AssetWithData, Category, Context, Counters, FeatureCollections, Site,
} from '../../contracts/discovery.js';
import type { NgsiAttribute } from '../../domain/asset-body.js';
import { formatRecvTime } from '../../domain/history-dates.js';
import type { Counted } from '../../storage/repositories/discovery-counts.js';
import type { AssetDetail, AssetSummary, RecentReading } from '../../storage/repositories/discovery-assets.js';
import type { SiteRecord } from '../../storage/repositories/sites.js';

/**
 * How discovery records look (spec part C, with the fields the original
 * observatory actually read; see docs/discovery.md). Pure functions of rows.
 */

/**
 * An attribute as stored: written as the domain's NgsiAttribute, but read back from JSON
 * without trusting every field to be there, so that one odd row cannot break a page.
 */
type StoredAttribute = Partial<NgsiAttribute>;
type StoredAttributes = Record<string, StoredAttribute>;

/** Date#toISOString's text, written the fast way readings' times are (a page shows dozens). */
export const iso = formatRecvTime;

/** Attribute values as the NGSI 9/10 shapes give them: strings, JSON for anything else. */
export const valueText = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));

export const parseAttributes = (attrs: string): StoredAttributes => {
  const parsed = JSON.parse(attrs) as unknown;
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as StoredAttributes) : {};
};

const metadataOf = (a: StoredAttribute): Record<string, { type?: unknown; value?: unknown }> =>
  (a.metadata && typeof a.metadata === 'object' && !Array.isArray(a.metadata) ? a.metadata : {}) as Record<string, { type?: unknown; value?: unknown }>;

/** Absolute links into the interface. */
export class Links {
  constructor(readonly base: string) {}
  site = (id: string) => `${this.base}/assets/sites/${encodeURIComponent(id)}`;
  siteAssets = (id: string) => `${this.base}/assets?filter=${encodeURIComponent(`site:${id}`)}`;
  experiment = (id: string) => `${this.base}/assets/experiments/${encodeURIComponent(id)}`;
  experimenter = (id: string) => `${this.base}/assets/experimenters/${encodeURIComponent(id)}`;
  service = (id: string) => `${this.base}/assets/service/${encodeURIComponent(id)}`;
  provider = (id: string) => `${this.base}/assets/providers/${encodeURIComponent(id)}`;
  filtered = (key: string, id: string) => `${this.base}/assets?filter=${encodeURIComponent(`${key}:${id}`)}`;
}

export function context(asset: AssetSummary, site: SiteRecord | undefined): Static<typeof Context> {
  const recorded = iso(asset.recordedAt);
  return {
    service: asset.service,
    provider: asset.provider,
    group: asset.group,
    name: asset.name,
    experimenter: asset.experimenter,
    experiment: asset.experiment,
    last_reading_at: iso(asset.lastReadingAt),
    recorded_at: recorded,
    last_updated_at: recorded,
    position: {
      latitude: asset.latitude,
      longitude: asset.longitude,
      city: site ? site.city ?? site.name : null,
      country_code: site?.countryCode ?? null,
      country: site?.country ?? null,
    },
  };
}

export function assetRecord(asset: AssetSummary, site: SiteRecord | undefined, links: Links): Static<typeof Asset> {
  return {
    id: asset.id,
    type: asset.type,
    context: context(asset, site),
    related: {
      service: { type: asset.service },
      provider: { type: asset.provider },
      group: { type: asset.group },
      site: site
        ? {
            id: site.id, type: site.type, name: site.name,
            position: { latitude: site.latitude, longitude: site.longitude },
            links: { self: links.site(site.id), related: { href: links.siteAssets(site.id) } },
          }
        : null,
      experiment: asset.experiment !== null
        ? {
            id: asset.experiment, type: 'experiment',
            links: { self: links.experiment(asset.experiment), related: { href: links.experimenter(asset.experimenter ?? '') } },
          }
        : null,
    },
  };
}

/** `/assets/{urn}`: the asset with `data.attributes.{types,data}`, which the original observatory and scripts read. */
export function assetWithData(asset: AssetDetail, site: SiteRecord | undefined, links: Links): Static<typeof AssetWithData> {
  const attrs = parseAttributes(asset.attrs);
  const data: Record<string, { name: string; type: string; value: string }> = {};
  for (const [name, a] of Object.entries(attrs)) data[name] = { name, type: String(a.type ?? ''), value: valueText(a.value) };
  return { ...assetRecord(asset, site, links), data: { attributes: { types: Object.keys(attrs), data } } };
}

/** `/assets/{urn}/data`: NGSI 9/10 attributes with their metadata as lists. */
export function assetData(asset: AssetDetail, site: SiteRecord | undefined, links: Links): Static<typeof AssetData> {
  const attributes = Object.entries(parseAttributes(asset.attrs)).map(([name, a]) => ({
    name,
    type: String(a.type ?? ''),
    value: valueText(a.value),
    metadata: Object.entries(metadataOf(a)).map(([mName, m]) => ({ name: mName, type: String(m?.type ?? ''), value: valueText(m?.value) })),
  }));
  return { ...assetRecord(asset, site, links), attributes };
}

/** The asset as NGSI v2 gives it: id, type and every attribute, normalized. */
export function ngsiDocument(asset: AssetDetail): Static<typeof AssetNgsi> {
  const doc: Record<string, unknown> = { id: asset.id, type: asset.type };
  for (const [name, a] of Object.entries(parseAttributes(asset.attrs))) {
    if (name === 'id' || name === 'type') continue;
    doc[name] = { type: a.type, value: a.value, metadata: metadataOf(a) };
  }
  return { doc };
}

/** `/assets/{urn}/data/ngsiv2`: `historic` from the readings, `observations` from the current state. */
export function assetDataNgsi(asset: AssetDetail, site: SiteRecord | undefined, readings: RecentReading[]): Static<typeof AssetDataNgsi> {
  const attributes: Record<string, { type: string; value: unknown; metadata: Record<string, unknown> }> = {};
  for (const [name, a] of Object.entries(parseAttributes(asset.attrs))) {
    attributes[name] = { type: String(a.type ?? ''), value: a.value, metadata: metadataOf(a) };
  }
  return {
    id: asset.id,
    type: asset.type,
    context: context(asset, site),
    attributes: {
      historic: readings.map((r) => ({
        type: r.type,
        value: r.value,
        metadata: {
          attrName: { type: 'Text', value: r.name },
          recvTime: { type: 'urn:oc:attributeType:ISO8601', value: iso(r.receivedAt) },
        },
      })),
      observations: [{ id: asset.id, type: asset.type, isPattern: false, attributes }],
    },
  };
}

export function counters(assets: number, online: number): Static<typeof Counters> {
  return { assets, online, offline: assets - online };
}

export function siteRecord(site: SiteRecord, count: { assets: number; online: number } | undefined, links: Links): Static<typeof Site> {
  return {
    id: site.id,
    type: site.type,
    context: {
      name: site.name,
      position: { latitude: site.latitude, longitude: site.longitude, city: site.city ?? site.name, country_code: site.countryCode, country: site.country },
    },
    attributes: counters(count?.assets ?? 0, count?.online ?? 0),
    links: { self: links.site(site.id), related: { href: links.siteAssets(site.id) } },
  };
}

/** A service or provider with its counts, in total and per city. */
export function categoryRecord(
  kind: 'service' | 'provider', id: string, perSite: Counted[], sites: ReadonlyMap<string, SiteRecord>, links: Links,
): Static<typeof Category> {
  let assets = 0;
  let online = 0;
  const cities = perSite.map((c) => {
    const siteId = c.key.site ?? '';
    const site = sites.get(siteId);
    assets += c.assets;
    online += c.online;
    return {
      id: siteId,
      type: site?.type ?? 'city',
      attributes: counters(c.assets, c.online),
      metadata: { name: site?.name ?? siteId, position: { latitude: site?.latitude ?? 0, longitude: site?.longitude ?? 0 } },
    };
  }).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    id,
    type: kind,
    attributes: counters(assets, online),
    links: { self: kind === 'service' ? links.service(id) : links.provider(id), related: { href: links.filtered(kind, id) } },
    related: { cities },
  };
}

/** GeoJSON: one FeatureCollection per asset type, in the order the types first appear. */
export function featureCollections(assets: AssetSummary[]): Static<typeof FeatureCollections> {
  const byType = new Map<string, Static<typeof FeatureCollections>[number]>();
  for (const a of assets) {
    let collection = byType.get(a.type);
    if (!collection) byType.set(a.type, (collection = { type: 'FeatureCollection', properties: { name: a.type }, features: [] }));
    collection.features.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [a.longitude, a.latitude] },
      properties: {
        id: a.id, type: a.type, name: a.name, site: a.site, service: a.service, provider: a.provider, group: a.group,
        origin: a.experiment !== null ? 'experiment' : 'city',
        last_update_at: a.lastReadingAt,
      },
    });
  }
  return [...byType.values()];
}
