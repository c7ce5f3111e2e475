/** Shapes of the discovery and datasource responses the page reads (see spec parts C and D). */

export interface Position {
  latitude: number | null;
  longitude: number | null;
  city?: string;
  country_code?: string;
  country?: string;
}

export interface Counters {
  assets: number;
  online: number;
  offline: number;
}

export interface Site {
  id: string;
  type: string;
  context: { name: string; position: Position };
  attributes: Counters;
  links?: Record<string, unknown>;
}

export interface CityCount {
  id: string;
  type?: string;
  attributes?: Counters;
  metadata?: { name?: string; position?: Position };
}

/** Services and providers share one shape. */
export interface Category {
  id: string;
  type: string;
  related?: { cities?: CityCount[] };
}

export interface AssetType {
  type: string;
  description?: string;
}

export interface AssetContext {
  service?: string;
  provider?: string;
  name?: string;
  group?: string | null;
  experiment?: string | null;
  last_reading_at?: string | null;
  recorded_at?: string | null;
  position?: Position;
}

export interface Asset {
  id: string;
  type: string;
  context: AssetContext;
  related?: { site?: { id?: string; name?: string } | null } & Record<string, unknown>;
}

export interface Metadatum {
  name: string;
  type: string;
  value: string;
}

export interface Attribute {
  name: string;
  type: string;
  value: string;
  metadata?: Metadatum[];
}

export interface AssetData extends Asset {
  attributes: Attribute[];
}

export interface FeatureProperties {
  id: string;
  type: string;
  site: string;
  service: string;
  provider: string;
  group: string | null;
  origin?: string | null;
  last_update_at: number | null;
}

export interface AssetFeature {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: [number, number] } | null;
  properties: FeatureProperties;
}

export interface AssetCollection {
  type: 'FeatureCollection';
  properties: { name: string };
  features: AssetFeature[];
}

export interface Reading {
  recvTime: string;
  attrName: string;
  attrType: string;
  attrValue: string;
}

export interface Aggregate {
  start: string;
  count: number;
  value: number | null;
}
