import { EMPTY_FILTERS, type FilterState, type Status } from './filters';

/**
 * What one is looking at, kept in the address so that it can be shared: the map's centre and zoom,
 * the filters, the colouring, the open asset with its charted attribute and time range, and the
 * comparison. A fragment (`#map=13/43.46/-3.81&site=santander&asset=…`) rather than a query, so the
 * server never sees it; `#asset=<urn>`, the older form, is read the same way.
 */

export type Preset = '24h' | '7d' | '30d' | '1y';
export const PRESETS: Preset[] = ['24h', '7d', '30d', '1y'];

export interface Pair {
  id: string;
  attr: string;
}

export interface ViewState {
  centre: { lat: number; lon: number; zoom: number } | null;
  filters: FilterState;
  colour: string | null;
  asset: string | null;
  attr: string | null;
  /** A preset moves with time; an explicit range (from a picker or a zoom) does not. */
  range: { preset: Preset } | { from: number; to: number } | null;
  compare: Pair[];
}

export const MAX_COMPARED = 6;

export const EMPTY_VIEW: ViewState = { centre: null, filters: { ...EMPTY_FILTERS }, colour: null, asset: null, attr: null, range: null, compare: [] };

const FILTER_KEYS: (keyof FilterState)[] = ['site', 'service', 'provider', 'type', 'status'];
/** Between an asset and its attribute in `cmp`; `~` never occurs in a URN (RFC 8141 reserves it for r/q components). */
const PAIR = '~';

const finite = (v: string | undefined): number | null => (v !== undefined && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

function parseCentre(text: string | null): ViewState['centre'] {
  const [zoom, lat, lon] = (text ?? '').split('/').map((v) => finite(v));
  if (zoom == null || lat == null || lon == null) return null;
  if (zoom < 0 || zoom > 20 || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return { zoom, lat, lon };
}

function parseTime(text: string | null): number | null {
  if (!text) return null;
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : t;
}

export function parseView(hash: string): ViewState {
  const q = new URLSearchParams(hash.replace(/^#/, ''));
  const filters = { ...EMPTY_FILTERS };
  for (const key of FILTER_KEYS) {
    const v = q.get(key);
    if (v) (filters as Record<string, string>)[key] = v;
  }
  if (filters.status !== 'online' && filters.status !== 'offline') filters.status = '' as Status;
  const preset = q.get('range');
  const from = parseTime(q.get('from'));
  const to = parseTime(q.get('to'));
  const range: ViewState['range'] = PRESETS.includes(preset as Preset) ? { preset: preset as Preset }
    : from !== null && to !== null && from < to ? { from, to } : null;
  const compare = (q.get('cmp') ?? '').split(',').filter(Boolean).flatMap((item): Pair[] => {
    const at = item.lastIndexOf(PAIR);
    return at > 0 && at < item.length - 1 ? [{ id: item.slice(0, at), attr: item.slice(at + 1) }] : [];
  }).slice(0, MAX_COMPARED);
  return {
    centre: parseCentre(q.get('map')),
    filters,
    colour: q.get('colour') || null,
    asset: q.get('asset') || null,
    attr: q.get('attr') || null,
    range,
    compare,
  };
}

const round = (v: number, digits: number): string => String(Math.round(v * 10 ** digits) / 10 ** digits);

/** Form encoding, but leaving `:`, `/` and `~` readable (all three are allowed as they are in a fragment). */
class Query {
  private readonly parts: string[] = [];
  set(key: string, value: string): void {
    this.parts.push(`${key}=${encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%2F/gi, '/')}`);
  }

  toString(): string {
    return this.parts.join('&');
  }
}

export function formatView(view: ViewState): string {
  const q = new Query();
  if (view.centre) q.set('map', `${round(view.centre.zoom, 2)}/${round(view.centre.lat, 5)}/${round(view.centre.lon, 5)}`);
  for (const key of FILTER_KEYS) if (view.filters[key]) q.set(key, view.filters[key]);
  if (view.colour) q.set('colour', view.colour);
  if (view.asset) {
    q.set('asset', view.asset);
    if (view.attr) q.set('attr', view.attr);
    if (view.range && 'preset' in view.range) q.set('range', view.range.preset);
    else if (view.range) {
      q.set('from', new Date(view.range.from).toISOString());
      q.set('to', new Date(view.range.to).toISOString());
    }
  }
  if (view.compare.length) q.set('cmp', view.compare.map((p) => `${p.id}${PAIR}${p.attr}`).join(','));
  const text = q.toString();
  return text ? `#${text}` : '';
}
