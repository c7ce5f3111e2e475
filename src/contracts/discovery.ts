/**
 * Request and response schemas of the discovery interface (spec part C),
 * written once: they type the routes, serialize the responses and make the
 * OpenAPI document. Query parameters are strings, as the spec gives them;
 * src/domain/asset-listing.ts and geo-query.ts read them, so that a bad value
 * gets a 400 naming it.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { QueryObject } from './query.js';
import { DEFAULT_PER, FILTER_KEYS, MAX_PER, SORT_KEYS } from '../domain/asset-listing.js';
import { DEFAULT_RADIUS_KM, MAX_POLYGON_VERTICES } from '../domain/geo-limits.js';

/** A value that may be null (one JSON type list: serializes faster than anyOf). */
const nullable = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'] });

const text = (description: string, examples?: string[]) => Type.Optional(Type.String({ description, ...(examples ? { examples } : {}) }));

// ---------- query parameters ----------

const pagingParams = {
  page: text(`Page number, from 1 (default 1); pages hold \`per\` assets`, ['1']),
  per: text(`Assets per page, 1–${MAX_PER} (default ${DEFAULT_PER})`, ['30']),
  offset: text('Skip this many assets first (whole number >= 0); wins over page', ['0']),
};

const orderingParams = {
  sort: text(`Sort key: one of ${SORT_KEYS.join(', ')} (default last_reading_at)`, ['last_reading_at']),
  order: text('ASC or DESC (default DESC for times, ASC otherwise)', ['DESC']),
};

const selectionParams = {
  urn: text('Only assets whose id starts with this', ['urn:oc:entity:santander:environmental:']),
  lastUpdated: text('Only assets updated (a reading received) at or after this ISO 8601 instant', ['2026-01-01T00:00:00Z']),
  lastUpdate: text('Synonym of lastUpdated (the original platform\'s spelling)'),
  type: text('Only assets of this type (full URN, or the short name after urn:oc:entityType:)', ['urn:oc:entityType:iotdevice']),
  filter: text(`Comma-separated key:value list; keys ${FILTER_KEYS.join(', ')}; values of one key are alternatives, different keys must all hold`, ['site:santander,service:environmental']),
};

export const ListingQuery = QueryObject({
  ...selectionParams,
  ...orderingParams,
  ...pagingParams,
  sample: text(`A random sample of this many assets (1–${MAX_PER}) instead of a page`, ['10']),
});

export const NgsiListingQuery = QueryObject({
  ...ListingQuery.properties,
  query: text('Metadata search: words separated by spaces or +, all of which must match', ['temperature santander']),
});

export const SearchQuery = QueryObject({
  query: Type.Optional(Type.String({ description: 'Words separated by spaces or +; every one must occur (case-insensitive) in the id, type, site, an attribute name or a metadata value', examples: ['santander+temperature'] })),
  ...selectionParams,
  ...orderingParams,
  ...pagingParams,
});

const geoParams = {
  radius: text(`Radius of the circle: radians, or kilometres with km=true (default ${DEFAULT_RADIUS_KM} km)`, ['0.5']),
  km: text('true: the radius is in kilometres', ['true']),
  query: text('polygon: search inside the polygon given by points (the only query there is)', ['polygon']),
  points: text(`Polygon vertices: a JSON array of [longitude, latitude] pairs (GeoJSON order), 3–${MAX_POLYGON_VERTICES}`, ['[[-3.82,43.45],[-3.79,43.45],[-3.79,43.47],[-3.82,43.47]]']),
  city: text('Only assets of this site', ['santander']),
};

export const GeoSearchQuery = QueryObject({
  lat: text('Latitude of the centre (with long)', ['43.4623']),
  long: text('Longitude of the centre (with lat)', ['-3.80998']),
  ...geoParams,
  ip: text('Centre the circle on this address\'s location (IPv4 or IPv6), read from the IP location databases the server is given (IP_LOCATION_DB); 400 when none places it. lat and long win.'),
  ...ListingQuery.properties,
});

export const NearbyQuery = QueryObject({
  ...geoParams,
  points: text('Further polygon vertices as a JSON array of [longitude, latitude] pairs; the asset\'s own position is the first vertex'),
  ...selectionParams,
  ...pagingParams,
});

export const SiteQuery = QueryObject({ type: text('Count only assets of this type', ['urn:oc:entityType:iotdevice']) });

export const HistoryQuery = QueryObject({ ...pagingParams });

export const UrnParams = Type.Object({ urn: Type.String({ description: 'Asset id (URN)', examples: ['urn:oc:entity:santander:environmental:fixed:462'] }) });
export const SiteParams = Type.Object({ site: Type.String({ description: 'Site id', examples: ['santander'] }) });
export const ServiceParams = Type.Object({ service: Type.String({ description: 'Service (the URN segment after the site)', examples: ['environmental'] }) });
export const ProviderParams = Type.Object({ provider: Type.String({ description: 'Provider (the URN segment after the service)', examples: ['fixed'] }) });
export const ExperimentParams = Type.Object({ experimentsID: Type.String({ description: 'Experiment id' }) });
export const ExperimenterParams = Type.Object({ experimenterID: Type.String({ description: 'Experimenter id (the user id of the experimenter)' }) });
export const TypeParams = Type.Object({ types: Type.String({ description: 'Asset type: full URN or short name', examples: ['iotdevice'] }) });

// ---------- records ----------

export const Position = Type.Object({
  latitude: Type.Number(),
  longitude: Type.Number(),
  city: nullable(Type.String()),
  country_code: nullable(Type.String()),
  country: nullable(Type.String()),
});

const Href = Type.Object({ href: Type.String() });

export const Context = Type.Object({
  service: nullable(Type.String()),
  provider: nullable(Type.String()),
  group: nullable(Type.String()),
  name: Type.String(),
  experimenter: nullable(Type.String()),
  experiment: nullable(Type.String()),
  last_reading_at: Type.String({ description: 'When the platform last received an update, ISO 8601 UTC' }),
  recorded_at: Type.String({ description: 'TimeInstant of the last update (the site\'s time), ISO 8601 UTC' }),
  last_updated_at: Type.String({ description: 'Same as recorded_at (the name the original observatory read)' }),
  position: Position,
});

export const RelatedSite = Type.Object({
  id: Type.String(),
  type: Type.String(),
  name: Type.String(),
  position: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }),
  links: Type.Object({ self: Type.String(), related: Href }),
});

export const Related = Type.Object({
  service: Type.Object({ type: nullable(Type.String()) }),
  provider: Type.Object({ type: nullable(Type.String()) }),
  group: Type.Object({ type: nullable(Type.String()) }),
  site: Type.Union([RelatedSite, Type.Null()]),
  experiment: Type.Union([Type.Object({ id: Type.String(), type: Type.String(), links: Type.Object({ self: Type.String(), related: Href }) }), Type.Null()]),
});

export const Asset = Type.Object({
  id: Type.String(),
  type: Type.String(),
  context: Context,
  related: Related,
}, { description: 'Asset' });
export type Asset = Static<typeof Asset>;

export const AssetList = Type.Array(Asset);

const AttributeSummary = Type.Object({ name: Type.String(), type: Type.String(), value: Type.String() });

export const AssetWithData = Type.Object({
  ...Asset.properties,
  data: Type.Object({
    attributes: Type.Object({
      types: Type.Array(Type.String(), { description: 'Attribute names' }),
      data: Type.Record(Type.String(), AttributeSummary, { description: 'Attribute by name; values as strings (JSON for non-strings)' }),
    }),
  }),
}, { description: 'Asset, with its current attributes under data (as the original observatory read them)' });

const Metadatum = Type.Object({ name: Type.String(), type: Type.String(), value: Type.String() });

export const AssetData = Type.Object({
  ...Asset.properties,
  attributes: Type.Array(Type.Object({
    name: Type.String(),
    type: Type.String(),
    value: Type.String({ description: 'The value as a string (JSON for non-strings)' }),
    metadata: Type.Array(Metadatum),
  })),
}, { description: 'AssetData (NGSI 9/10 style)' });

const NgsiMetadata = Type.Record(Type.String(), Type.Unknown());

export const AssetNgsi = Type.Object({
  doc: Type.Record(Type.String(), Type.Unknown(), { description: 'The asset in NGSI v2 normalized form: id, type and its attributes' }),
}, { description: 'AssetNSGI' });
export const AssetNgsiList = Type.Array(AssetNgsi);

export const AssetDataNgsi = Type.Object({
  id: Type.String(),
  type: Type.String(),
  context: Context,
  attributes: Type.Object({
    historic: Type.Array(Type.Object({
      type: Type.String(),
      value: Type.String(),
      metadata: NgsiMetadata,
    }), { description: 'Readings, newest first (paged with page/per/offset); metadata carries attrName and recvTime' }),
    observations: Type.Array(Type.Object({
      id: Type.String(),
      type: Type.String(),
      isPattern: Type.Boolean(),
      attributes: Type.Record(Type.String(), Type.Object({ type: Type.String(), value: Type.Unknown(), metadata: NgsiMetadata })),
    }), { description: 'The current state' }),
  }),
}, { description: 'AssetData_NSGI (NGSI v2 style)' });

export const Counters = Type.Object({
  assets: Type.Integer(),
  online: Type.Integer({ description: 'Assets with a reading within the online window (ONLINE_WINDOW, hour granularity)' }),
  offline: Type.Integer(),
});

export const Site = Type.Object({
  id: Type.String(),
  type: Type.String(),
  context: Type.Object({ name: Type.String(), position: Position }),
  attributes: Counters,
  links: Type.Object({ self: Type.String(), related: Href }),
}, { description: 'Site' });
export const SiteList = Type.Array(Site);

const CityCount = Type.Object({
  id: Type.String(),
  type: Type.String(),
  attributes: Counters,
  metadata: Type.Object({ name: Type.String(), position: Type.Object({ latitude: Type.Number(), longitude: Type.Number() }) }),
});

export const Category = Type.Object({
  id: Type.String(),
  type: Type.String({ description: 'service or provider' }),
  attributes: Counters,
  links: Type.Object({ self: Type.String(), related: Href }),
  related: Type.Object({ cities: Type.Array(CityCount) }),
}, { description: 'Service or Provider, with counts per city' });
export const CategoryList = Type.Array(Category);

export const Feature = Type.Object({
  type: Type.Literal('Feature'),
  geometry: Type.Object({ type: Type.Literal('Point'), coordinates: Type.Array(Type.Number(), { description: '[longitude, latitude]' }) }),
  properties: Type.Object({
    id: Type.String(),
    type: Type.String(),
    name: Type.String(),
    site: Type.String(),
    service: nullable(Type.String()),
    provider: nullable(Type.String()),
    group: nullable(Type.String()),
    origin: Type.String({ description: 'city (pushed by a city site) or experiment (an experiment asset)' }),
    last_update_at: Type.Number({ description: 'When the platform last received an update, epoch milliseconds' }),
  }),
});

export const FeatureCollections = Type.Array(Type.Object({
  type: Type.Literal('FeatureCollection'),
  properties: Type.Object({ name: Type.String({ description: 'The asset type of the collection' }) }),
  features: Type.Array(Feature),
}), { description: 'One FeatureCollection per asset type, in order of first appearance' });

export const AssetType = Type.Object({ type: Type.String(), description: Type.String() }, { description: 'Types' });
export const AssetTypeList = Type.Array(AssetType);

export const DiscoveryError = Type.Object({
  error: Type.String({ description: 'BadRequest, NotFound, Unauthorized…' }),
  description: Type.String(),
}, { description: 'Error' });
