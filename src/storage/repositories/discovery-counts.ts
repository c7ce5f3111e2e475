import type { Store } from '../store.js';

/**
 * Asset, online and offline counts per site, service or provider, read from the
 * counters the write path keeps (asset_counts, asset_activity): the cost
 * depends on how many sites, services, providers and types there are, never on
 * how many assets.
 */

export type CountDimension = 'site' | 'service' | 'provider';

export interface CountScope {
  site?: string;
  service?: string;
  provider?: string;
  /** Only assets of these types. */
  types?: string[];
  /** Leave these sites out. */
  excludeSites?: string[];
}

export interface Counted {
  /** The value of each grouped dimension ('' for a missing service or provider). */
  key: Partial<Record<CountDimension, string>>;
  assets: number;
  online: number;
}

function scoped<Q extends { where: (...args: any[]) => Q }>(query: Q, scope: CountScope): Q {
  let q = query;
  if (scope.site !== undefined) q = q.where('site', '=', scope.site);
  if (scope.service !== undefined) q = q.where('service', '=', scope.service);
  if (scope.provider !== undefined) q = q.where('provider', '=', scope.provider);
  if (scope.types !== undefined) q = q.where('type', 'in', scope.types.length > 0 ? scope.types : ['']);
  if (scope.excludeSites !== undefined && scope.excludeSites.length > 0) q = q.where('site', 'not in', scope.excludeSites);
  return q;
}

const keyOf = (row: Record<string, unknown>, dims: readonly CountDimension[]): string => dims.map((d) => String(row[d])).join('\u0000');

/**
 * Counts grouped by `dims` within `scope`; an asset is online when its last
 * reading falls in an hourly bucket from `onlineSince` on.
 */
export async function countAssetsBy(store: Store, dims: readonly CountDimension[], scope: CountScope, onlineSince: number): Promise<Counted[]> {
  const [totals, recent] = await Promise.all([
    scoped(store.read.selectFrom('asset_counts').select(dims).select((eb) => eb.fn.sum<number>('assets').as('n')), scope)
      .$if(dims.length > 0, (q) => q.groupBy(dims))
      .execute(),
    scoped(store.read.selectFrom('asset_activity').select(dims).select((eb) => eb.fn.sum<number>('assets').as('n')), scope)
      .where('hour', '>=', onlineSince)
      .$if(dims.length > 0, (q) => q.groupBy(dims))
      .execute(),
  ]);
  const online = new Map<string, number>();
  for (const row of recent) online.set(keyOf(row, dims), Number(row.n ?? 0));
  const out: Counted[] = [];
  for (const row of totals) {
    const assets = Number(row.n ?? 0);
    if (assets <= 0) continue;
    const key: Partial<Record<CountDimension, string>> = {};
    for (const d of dims) key[d] = String((row as Record<string, unknown>)[d]);
    out.push({ key, assets, online: Math.min(assets, online.get(keyOf(row, dims)) ?? 0) });
  }
  return out;
}

/** Is there any live asset with this service (or provider) outside the excluded sites? */
export async function dimensionExists(store: Store, dim: 'service' | 'provider', value: string, excludeSites: string[]): Promise<boolean> {
  const row = await scoped(store.read.selectFrom('asset_counts').select('assets'), { [dim]: value, excludeSites })
    .where('assets', '>', 0).limit(1).executeTakeFirst();
  return row !== undefined;
}
