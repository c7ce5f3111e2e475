import type { TokenSource } from '../api';
import type { FilterState } from '../filters';
import type { AssetFeature } from '../types';
import { applyChanges, type Bounds } from './apply';
import { LiveIndicator } from './indicator';
import { type LiveChange, LiveStream } from './stream';

/** What the live map needs of the page. */
export interface LiveMapHost {
  /** The features shown now, and the call that shows others. */
  features(): AssetFeature[];
  show(features: AssetFeature[]): void;
  /** Changes of the asset whose panel is open. */
  openAssetChanged(id: string, changes: LiveChange[]): void;
  /** What was missed is gone from the platform: load the view again. */
  reload(): void;
}

/** Changes kept to lay over a view being loaded, which may have been read before them. */
const REPLAY_LIMIT = 5000;

/**
 * Keeps the asset view live: the stream follows the area in view with the
 * filters the platform can apply, and its changes are laid over what the
 * view loaded, including those that arrive while a view is being loaded.
 */
export class LiveMap {
  private readonly stream: LiveStream;
  private readonly indicator: LiveIndicator;
  private bounds: Bounds | null = null;
  /** Changes received since the view now loading was asked for (null: none loading). */
  private replay: LiveChange[] | null = null;

  constructor(auth: TokenSource, mapContainer: HTMLElement, private readonly host: LiveMapHost, private readonly openId: () => string | null) {
    this.indicator = new LiveIndicator(mapContainer);
    this.stream = new LiveStream(auth, {
      onChanges: (changes) => this.received(changes),
      onReset: () => host.reload(),
      onState: (state) => this.indicator.show(state),
    });
  }

  /** A view starts loading: the changes from now on are laid over it once it is in. */
  loading(): void {
    this.replay = [];
  }

  /** The loaded view, with what changed while it loaded. */
  loaded(features: AssetFeature[], bounds: Bounds): AssetFeature[] {
    const replay = this.replay ?? [];
    this.replay = null;
    this.bounds = bounds;
    return replay.length ? applyChanges(features, replay, bounds) : features;
  }

  /** Follows the area in view (null: the world view of sites, where nothing is followed). */
  follow(bounds: Bounds | null, filters: FilterState): void {
    if (!bounds) {
      this.bounds = null;
      this.stream.follow(null);
      return;
    }
    this.bounds = bounds;
    const r = (v: number): string => String(Math.round(v * 1e5) / 1e5);
    this.stream.follow({
      bbox: bounds.map(r).join(','),
      site: filters.site || undefined,
      service: filters.service || undefined,
      provider: filters.provider || undefined,
      type: filters.type || undefined,
    });
  }

  private received(changes: LiveChange[]): void {
    if (this.replay && this.replay.length < REPLAY_LIMIT) this.replay.push(...changes);
    if (this.bounds) this.host.show(applyChanges(this.host.features(), changes, this.bounds));
    const open = this.openId();
    if (open) {
      const mine = changes.filter((c) => c.id === open);
      if (mine.length) this.host.openAssetChanged(open, mine);
    }
  }
}
