import { setOnlineWindow } from './format';

/** The platform's rules the page follows (GET /observatory/settings), so that page and server agree. */

export interface TileSettings {
  url: string;
  attribution: string;
}

export interface PageSettings {
  onlineWindowMs: number;
  tiles: TileSettings | null;
  maxReadingsPerPage: number;
  aggregationPeriods: string[];
}

/** What the page assumes when the platform cannot tell: the documented defaults, without tiles. */
const FALLBACK: PageSettings = { onlineWindowMs: 24 * 3600_000, tiles: null, maxReadingsPerPage: 1000, aggregationPeriods: ['hour', 'day'] };

let current: PageSettings = FALLBACK;

export function settings(): PageSettings {
  return current;
}

export async function loadSettings(): Promise<PageSettings> {
  try {
    const res = await fetch('/observatory/settings', { headers: { Accept: 'application/json' } });
    if (res.ok) {
      const body = (await res.json()) as Partial<PageSettings>;
      current = {
        onlineWindowMs: typeof body.onlineWindowMs === 'number' ? body.onlineWindowMs : FALLBACK.onlineWindowMs,
        tiles: body.tiles && typeof body.tiles.url === 'string' ? { url: body.tiles.url, attribution: String(body.tiles.attribution ?? '') } : null,
        maxReadingsPerPage: typeof body.maxReadingsPerPage === 'number' ? body.maxReadingsPerPage : FALLBACK.maxReadingsPerPage,
        aggregationPeriods: Array.isArray(body.aggregationPeriods) ? body.aggregationPeriods.map(String) : FALLBACK.aggregationPeriods,
      };
    }
  } catch {
    // An older platform without settings: the defaults hold.
  }
  setOnlineWindow(current.onlineWindowMs);
  return current;
}
