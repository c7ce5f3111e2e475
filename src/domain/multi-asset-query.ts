/**
 * The assets of a multi-asset history request (GET /datasource/readings):
 * listed by id, or chosen by type and/or site, with one attribute. At most
 * MAX_SERIES assets, so that one answer stays the size of a chart.
 */
import { invalidParameter as invalid } from './query-parameter.js';
import type { RawQuery } from './history-query.js';

export const MAX_SERIES = 100;

export type AssetChoice =
  | { kind: 'ids'; ids: string[] }
  | { kind: 'selection'; type: string | undefined; site: string | undefined };

export interface MultiAssetQuery {
  attr: string;
  assets: AssetChoice;
}

export function parseMultiAssetQuery(raw: RawQuery): MultiAssetQuery {
  const attr = raw.attr;
  if (attr === undefined || attr === '') throw invalid('attr', 'is required: the attribute whose series are compared');
  const listed = raw.assets;
  if (listed !== undefined) {
    if (raw.type !== undefined || raw.site !== undefined) {
      throw invalid('assets', `cannot be combined with '${raw.type !== undefined ? 'type' : 'site'}': list the assets, or choose them by type and site`);
    }
    const ids = [...new Set(listed.split(',').map((id) => id.trim()))];
    if (ids.some((id) => id === '')) throw invalid('assets', 'must be asset ids separated by commas, none empty');
    if (ids.length > MAX_SERIES) throw invalid('assets', `lists ${ids.length} assets; at most ${MAX_SERIES}`);
    return { attr, assets: { kind: 'ids', ids } };
  }
  if ((raw.type ?? '') === '' && (raw.site ?? '') === '') {
    throw invalid('assets', `is required, unless the assets are chosen by 'type' and/or 'site'`);
  }
  return { attr, assets: { kind: 'selection', type: raw.type || undefined, site: raw.site || undefined } };
}

/** The 400 of a selection holding more assets than one answer takes. */
export const tooManySeries = () => invalid('type', `the assets of this type and site are more than ${MAX_SERIES}: narrow the choice with 'site', or list them in 'assets'`);
