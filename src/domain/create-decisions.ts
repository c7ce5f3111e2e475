import { activityHour } from './activity.js';
import type { NgsiAttribute } from './asset-body.js';
import { counterKey, Tally, type CounterKey } from './asset-counters.js';
import type { CreateInput, CreateOutcome, NewAsset } from './asset-writes.js';
import type { Position } from './position.js';

/**
 * The rules of a batch of creates, shared by both stores: each create is
 * decided in order as if they ran one after another (a site must exist; its
 * quota counts its live assets, those created earlier in the batch included;
 * an id live before the batch, or created earlier in it, exists), and a
 * refused create writes nothing.
 */

/** A site as a batch of creates sees it. */
export interface SiteState {
  /** Its own quota; null: the default. */
  quota: number | null;
  latitude: number;
  longitude: number;
  /** Live assets, the creates of this batch so far included. */
  assets: number;
}

export class CreateDecisions {
  constructor(
    /** The sites of the batch; null: no such site. */
    readonly sites = new Map<string, SiteState | null>(),
    /** Ids of live assets, where the store read them before deciding. */
    private readonly live = new Set<string>(),
  ) {}

  /** Why this create is refused, or undefined when it may be written. */
  refusal(input: CreateInput): Exclude<CreateOutcome, { kind: 'created' }> | undefined {
    const site = this.sites.get(input.asset.urn.site);
    if (!site) return { kind: 'no-site' };
    const quota = site.quota ?? input.defaultQuota;
    if (site.assets >= quota) return { kind: 'quota-reached', quota };
    if (this.live.has(input.asset.id)) return { kind: 'exists' };
    return undefined;
  }

  /** Where the asset goes: its own position, else its site's centre. */
  positionOf(asset: NewAsset): Position {
    const site = this.sites.get(asset.urn.site) as SiteState;
    return asset.position ?? { latitude: site.latitude, longitude: site.longitude };
  }

  /** The create was written: it counts against its site's quota, and its id is live. */
  made(input: CreateInput): void {
    (this.sites.get(input.asset.urn.site) as SiteState).assets += 1;
    this.live.add(input.asset.id);
  }
}

/** The attributes (name and type) a new asset carries. */
export const attributesOf = (asset: NewAsset): Array<{ name: string; type: string }> =>
  Object.keys(asset.attributes).map((name) => ({ name, type: (asset.attributes[name] as NgsiAttribute).type }));

/** What the creates of a batch add to the counters, and the types they register. */
export function creationCounts(created: readonly CreateInput[]): {
  counts: Array<{ key: CounterKey; n: number }>;
  activity: Array<{ key: CounterKey; hour: number; n: number }>;
  types: string[];
} {
  const counts = new Tally<CounterKey>();
  const activity = new Tally<{ key: CounterKey; hour: number }>();
  const types = new Set<string>();
  for (const { asset, registerType } of created) {
    const key = counterKey({ site: asset.urn.site, service: asset.urn.service, provider: asset.urn.provider, type: asset.type });
    const hour = activityHour(asset.receivedAt);
    counts.add(key, [], key);
    activity.add(key, [hour], { key, hour });
    if (registerType) types.add(asset.type);
  }
  return {
    counts: [...counts.groupsWithCounts()].map(({ value, n }) => ({ key: value, n })),
    activity: [...activity.groupsWithCounts()].map(({ value, n }) => ({ ...value, n })),
    types: [...types],
  };
}
