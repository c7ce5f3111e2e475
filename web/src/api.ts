import type {
  Aggregate, Asset, AssetCollection, AssetData, AssetType, Category, Reading, Site,
} from './types';

const DISCOVERY = '/discovery/v0';
const DATASOURCE = '/datasource';

/** A failed call, carrying a sentence fit to show to the person using the page. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

export interface TokenSource {
  /** A valid access token, or null when nobody is signed in. */
  token(): Promise<string | null>;
  /** The platform refused the token: forget it. */
  rejected(): void;
}

export interface GeoOptions {
  city?: string;
  /** `service:x,provider:y` */
  filter?: string;
  type?: string;
  /** ISO instant: only assets updated since. */
  updatedSince?: string;
  per: number;
}

type Query = Record<string, string | number | boolean | undefined>;

function queryString(query: Query): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

function describe(status: number, body: unknown): string {
  const detail = body && typeof body === 'object'
    ? (body as Record<string, unknown>).description ?? (body as Record<string, unknown>).message
    : undefined;
  if (status === 404) return 'This item could not be found. It may have been removed.';
  if (status === 401 || status === 403) return 'You are not allowed to see this. Try signing in.';
  if (status === 429) return 'The platform is busy. Please try again in a moment.';
  if (status >= 500) return 'The platform could not answer just now. Please try again shortly.';
  return typeof detail === 'string' && detail ? detail : `The request was refused (${status}).`;
}

export class Api {
  constructor(readonly auth: TokenSource) {}

  private async get<T>(path: string, signal?: AbortSignal): Promise<T> {
    return (await this.request<T>(path, signal)).body;
  }

  private async request<T>(path: string, signal?: AbortSignal, retried = false): Promise<{ body: T; headers: Headers }> {
    const token = retried ? null : await this.auth.token();
    const headers: Record<string, string> = { Accept: 'application/json, application/geojson' };
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetch(path, { headers, signal });
    } catch (err) {
      if (isAbort(err)) throw err;
      throw new ApiError(0, 'The platform cannot be reached. Check your connection.');
    }
    if (res.status === 401 && token && !retried) {
      // An expired or revoked session: carry on as a visitor rather than failing.
      this.auth.rejected();
      return this.request<T>(path, signal, true);
    }
    const text = await res.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      if (res.ok) throw new ApiError(res.status, 'The platform sent an answer this page cannot read.');
    }
    if (!res.ok) throw new ApiError(res.status, describe(res.status, body));
    return { body: body as T, headers: res.headers };
  }

  /** A document in another format (CSV), with the caller's token; null when the platform has no such document (404). */
  async document(path: string, accept: string): Promise<string | null> {
    const token = await this.auth.token();
    const headers: Record<string, string> = { Accept: accept };
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetch(path, { headers });
    } catch {
      throw new ApiError(0, 'The platform cannot be reached. Check your connection.');
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new ApiError(res.status, describe(res.status, undefined));
    return res.text();
  }

  sites(): Promise<Site[]> {
    return this.get(`${DISCOVERY}/assets/sites`);
  }

  services(): Promise<Category[]> {
    return this.get(`${DISCOVERY}/assets/services`);
  }

  providers(): Promise<Category[]> {
    return this.get(`${DISCOVERY}/assets/providers`);
  }

  types(): Promise<AssetType[]> {
    return this.get(`${DISCOVERY}/types`);
  }

  /**
   * Assets inside a closed ring of [lon, lat] pairs, grouped by asset type, with the number of all
   * matching assets when the platform tells it (X-Total-Count). `filter`, `type` and `lastUpdated`
   * are the listing parameters of /assets, which the geo search honours too.
   */
  async geoSearch(ring: [number, number][], opts: GeoOptions, signal?: AbortSignal): Promise<{ collections: AssetCollection[]; total: number | null }> {
    const q = queryString({
      query: 'polygon', points: JSON.stringify(ring), city: opts.city, filter: opts.filter, type: opts.type,
      lastUpdated: opts.updatedSince, per: opts.per,
    });
    const { body, headers } = await this.request<AssetCollection[]>(`${DISCOVERY}/assets/geo/search${q}`, signal);
    const total = Number(headers.get('X-Total-Count') ?? NaN);
    return { collections: Array.isArray(body) ? body : [], total: Number.isFinite(total) ? total : null };
  }

  /** Metadata search; several words are joined with `+`, each one encoded on its own. */
  search(words: string[], per: number, signal?: AbortSignal): Promise<Asset[]> {
    const query = words.map(encodeURIComponent).join('+');
    return this.get(`${DISCOVERY}/assets/metadata/search?page=1&per=${per}&query=${query}`, signal);
  }

  asset(urn: string, signal?: AbortSignal): Promise<Asset> {
    return this.get(`${DISCOVERY}/assets/${encodeURIComponent(urn)}`, signal);
  }

  async assetData(urn: string, signal?: AbortSignal): Promise<AssetData> {
    const body = await this.get<AssetData | AssetData[]>(`${DISCOVERY}/assets/${encodeURIComponent(urn)}/data`, signal);
    const data = Array.isArray(body) ? body[0] : body;
    if (!data) throw new ApiError(404, describe(404, undefined));
    return data;
  }

  async readings(assetId: string, attr: string, from: Date, to: Date, offset: number, limit: number, signal?: AbortSignal): Promise<Reading[]> {
    const q = queryString({ from: from.toISOString(), to: to.toISOString(), limit, offset });
    const body = await this.get<{ readings?: Reading[] }>(
      `${DATASOURCE}/${encodeURIComponent(assetId)}/${encodeURIComponent(attr)}/readings${q}`, signal);
    return body.readings ?? [];
  }

  async aggregates(assetId: string, attr: string, from: Date, to: Date, period: string, limit: number, signal?: AbortSignal): Promise<Aggregate[]> {
    const q = queryString({ from: from.toISOString(), to: to.toISOString(), aggrMethod: 'avg', aggrPeriod: period, limit });
    const body = await this.get<{ aggregates?: Aggregate[] }>(
      `${DATASOURCE}/${encodeURIComponent(assetId)}/${encodeURIComponent(attr)}/readings${q}`, signal);
    return body.aggregates ?? [];
  }

  /** Current values of every asset carrying `attr`, by asset id (metadata search, at most `pages` pages of 1,000). */
  async currentValues(attr: string, pages: number, signal?: AbortSignal): Promise<Map<string, unknown>> {
    const values = new Map<string, unknown>();
    for (let page = 1; page <= pages; page++) {
      const q = queryString({ query: attr, per: 1000, page });
      const { body, headers } = await this.request<{ doc?: Record<string, unknown> }[]>(`${DISCOVERY}/assets/ngsiv2${q}`, signal);
      const docs = Array.isArray(body) ? body : [];
      for (const { doc } of docs) {
        const entry = doc?.[attr] as { value?: unknown } | undefined;
        if (doc && typeof doc.id === 'string' && entry && 'value' in entry) values.set(doc.id, entry.value);
      }
      const total = Number(headers.get('X-Total-Count') ?? NaN);
      if (docs.length < 1000 || (Number.isFinite(total) && page * 1000 >= total)) break;
    }
    return values;
  }

  /** Assets matching the filters anywhere (the first 1,000), with their positions, and how many match in all. */
  async matching(opts: Omit<GeoOptions, 'per'>, signal?: AbortSignal): Promise<{ assets: Asset[]; total: number | null }> {
    const q = queryString({ city: opts.city, filter: opts.filter, type: opts.type, lastUpdated: opts.updatedSince, per: 1000, page: 1 });
    const { body, headers } = await this.request<Asset[]>(`${DISCOVERY}/assets${q}`, signal);
    const total = Number(headers.get('X-Total-Count') ?? NaN);
    return { assets: Array.isArray(body) ? body : [], total: Number.isFinite(total) ? total : null };
  }
}
