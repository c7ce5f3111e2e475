/**
 * How discovery lists assets (DESIGN.md, "Discovery"): which assets (filters,
 * type, URN prefix, update time), in which order, and which page of them.
 * Query parameters arrive as text or numbers; every bad one is a 400 naming it.
 */
import { DATE_EXAMPLES, parseIsoDate } from './history-dates.js';
import type { Page } from './page.js';
import { invalidParameter as invalid } from './query-parameter.js';
import { wholeNumberWithin } from './whole-number.js';

export type { Page } from './page.js';

export const DEFAULT_PER = 30;
export const MAX_PER = 1000;
/** Far beyond any real listing, and keeps offsets exact as JS numbers and SQL BIGINTs. */
export const MAX_OFFSET = 1_000_000_000;

export const SORT_KEYS = ['id', 'type', 'site', 'service', 'provider', 'last_reading_at', 'recorded_at'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

export const FILTER_KEYS = ['site', 'service', 'provider', 'group', 'type', 'experiment'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

/** Accepted values per filter key; several values of one key are alternatives. */
export type Filters = Partial<Record<FilterKey, string[]>>;

export const ENTITY_TYPE_PREFIX = 'urn:oc:entityType:';

export interface AssetSelection {
  filters: Filters;
  /** Only ids that start with this. */
  urnPrefix?: string;
  /** Only assets whose last reading is at or after this instant (epoch ms). */
  updatedSince?: number;
}

export interface Ordering {
  sort: SortKey;
  order: SortOrder;
}

export interface AssetListing {
  selection: AssetSelection;
  ordering: Ordering;
  page: Page;
  /** When set, a random sample of this many assets instead of a page. */
  sample?: number;
}

/** The query parameters of /assets as received (already typed by the route schema). */
export interface ListingParams {
  urn?: string;
  lastUpdated?: string;
  /** The original platform's spelling, accepted as a synonym. */
  lastUpdate?: string;
  type?: string;
  sort?: string;
  filter?: string;
  order?: string;
  offset?: string;
  page?: string;
  per?: string;
  sample?: string;
}

/** Short type names (`iotdevice`) stand for `urn:oc:entityType:iotdevice`; the dictionary's lower-case `entitytype` spelling is read as the canonical one. */
export function canonicalAssetType(type: string): string {
  if (/^urn:oc:entitytype:/i.test(type)) return ENTITY_TYPE_PREFIX + type.slice(ENTITY_TYPE_PREFIX.length);
  return type.startsWith('urn:') ? type : ENTITY_TYPE_PREFIX + type;
}

/** A whole number within [min, max] (the rule of whole-number.ts); undefined when absent. */
export function wholeNumber(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = wholeNumberWithin(text, min, max);
  if (value === undefined) throw invalid(name, `must be a whole number between ${min} and ${max}`);
  return value;
}

/** `page` (from 1) × `per`, or an explicit `offset` (which wins over `page`). */
export function parsePage(params: Pick<ListingParams, 'page' | 'per' | 'offset'>): Page {
  const per = wholeNumber('per', params.per, 1, MAX_PER) ?? DEFAULT_PER;
  const offset = wholeNumber('offset', params.offset, 0, MAX_OFFSET);
  const page = wholeNumber('page', params.page, 1, Math.floor(MAX_OFFSET / per) + 1) ?? 1;
  return { limit: per, offset: offset ?? (page - 1) * per };
}

export function parseOrdering(params: Pick<ListingParams, 'sort' | 'order'>, fallback: Ordering = { sort: 'last_reading_at', order: 'desc' }): Ordering {
  let sort = fallback.sort;
  if (params.sort !== undefined) {
    if (!(SORT_KEYS as readonly string[]).includes(params.sort)) throw invalid('sort', `expected one of ${SORT_KEYS.join(', ')}`);
    sort = params.sort as SortKey;
  }
  // Times read newest first unless asked otherwise; names read A to Z.
  let order: SortOrder = params.sort === undefined ? fallback.order : sort === 'last_reading_at' || sort === 'recorded_at' ? 'desc' : 'asc';
  if (params.order !== undefined) {
    const o = params.order.toLowerCase();
    if (o !== 'asc' && o !== 'desc') throw invalid('order', 'expected ASC or DESC');
    order = o;
  }
  return { sort, order };
}

/** `key:value,key:value`; the value may itself hold colons (`type:urn:oc:entityType:iotdevice`). */
export function parseFilter(text: string | undefined): Filters {
  const filters: Filters = {};
  if (text === undefined) return filters;
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const colon = item.indexOf(':');
    if (colon <= 0) throw invalid('filter', `'${item}' is not key:value (keys: ${FILTER_KEYS.join(', ')})`);
    const key = item.slice(0, colon).trim();
    const value = item.slice(colon + 1).trim();
    if (!(FILTER_KEYS as readonly string[]).includes(key)) throw invalid('filter', `unknown key '${key}' (keys: ${FILTER_KEYS.join(', ')})`);
    if (value === '') throw invalid('filter', `no value for '${key}'`);
    const k = key as FilterKey;
    const values = (filters[k] ??= []);
    const v = k === 'type' ? canonicalAssetType(value) : value;
    if (!values.includes(v)) values.push(v);
  }
  return filters;
}

/**
 * A date query parameter of discovery, read by the platform's one rule for dates in queries
 * (`parseIsoDate` in history-dates.ts, which the datasource uses too).
 */
export function parseInstant(name: string, text: string): number {
  const epochMs = parseIsoDate(text.trim());
  if (epochMs === undefined) throw invalid(name, `expected an ISO 8601 date or date-time such as ${DATE_EXAMPLES}, got ${JSON.stringify(text)}`);
  return epochMs;
}

export function parseSelection(params: Pick<ListingParams, 'urn' | 'lastUpdated' | 'lastUpdate' | 'type' | 'filter'>): AssetSelection {
  const filters = parseFilter(params.filter);
  if (params.type !== undefined) {
    if (params.type.trim() === '') throw invalid('type', 'must not be empty');
    const type = canonicalAssetType(params.type.trim());
    // `type` narrows what `filter` allows: both must hold.
    filters.type = filters.type ? filters.type.filter((t) => t === type) : [type];
  }
  const selection: AssetSelection = { filters };
  if (params.urn !== undefined) {
    if (params.urn === '') throw invalid('urn', 'must not be empty');
    selection.urnPrefix = params.urn;
  }
  const since = params.lastUpdated ?? params.lastUpdate;
  if (since !== undefined) selection.updatedSince = parseInstant(params.lastUpdated !== undefined ? 'lastUpdated' : 'lastUpdate', since);
  return selection;
}

export function parseListing(params: ListingParams, fallback?: Ordering): AssetListing {
  const listing: AssetListing = { selection: parseSelection(params), ordering: parseOrdering(params, fallback), page: parsePage(params) };
  const sample = wholeNumber('sample', params.sample, 1, MAX_PER);
  if (sample !== undefined) listing.sample = sample;
  return listing;
}

/**
 * The site, service and provider an id prefix pins down: only segments the
 * prefix completes (followed by `:`) count, so the store can narrow the search
 * with its indexes before checking the prefix itself.
 */
export function segmentsOfPrefix(prefix: string): { site?: string; service?: string; provider?: string } {
  const entity = 'urn:oc:entity:';
  if (!prefix.startsWith(entity)) return {};
  const complete = prefix.slice(entity.length).split(':').slice(0, -1);
  const [site, service, provider] = complete;
  if (site === undefined || site === '') return {};
  // Experiment assets keep experimenter and experiment where cities have service and provider.
  if (site === 'experimenters') return { site };
  const out: { site?: string; service?: string; provider?: string } = { site };
  if (service !== undefined && service !== '') out.service = service;
  if (provider !== undefined && provider !== '') out.provider = provider;
  return out;
}
