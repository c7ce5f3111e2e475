import type { NgsiAttributes } from '../domain/asset-body.js';
import type { Change } from '../domain/changes.js';
import { assetStates } from '../storage/repositories/subscriptions.js';
import type { Store } from '../storage/store.js';

/**
 * The reads delivery makes, shared by every subscription of the process.
 * Subscriptions that keep up are all near the end of the change log, each at
 * its own cursor: the latest changes are kept in memory as read, so each is
 * read from the store once, whichever subscriptions then ask for it. An asset's
 * state is kept with the highest seq it is known to reflect (the last change
 * read from the log before it was read), and serves any change up to that
 * seq: a notification shows the state after its change, never an older one.
 * Readers far behind (catching up after a failure) read the store directly.
 */

/** An asset as the store last knows it, its attributes read. */
export interface KnownAsset {
  attributes: NgsiAttributes;
  site: string;
  experimenter: string | null;
  experiment: string | null;
  latitude: number;
  longitude: number;
}

interface KeptState {
  /** undefined: the store has no row of that id. */
  asset: KnownAsset | undefined;
  /** Every change up to this seq is reflected. */
  through: number;
}

/** Changes kept in memory at most (the latest). */
const KEPT_CHANGES = 20_000;
/** Asset states kept at most; past it they are forgotten together. */
const KEPT_STATES = 50_000;

export class DeliveryReads {
  /** Every change after `recentAfter`, in order, as far as read (none: not begun). */
  private recent: Change[] = [];
  private recentAfter: number | undefined;
  private readonly states = new Map<string, KeptState>();
  /** Reads under way, shared by whoever asks the same thing meanwhile. */
  private readonly underWay = new Map<string, Promise<unknown>>();
  private readonly statesUnderWay = new Map<string, { through: number; reading: Promise<void> }>();

  constructor(private readonly store: Store, private readonly page: number) {}

  private get lastRead(): number | undefined {
    return this.recent.length > 0 ? (this.recent[this.recent.length - 1] as Change).seq : this.recentAfter;
  }

  /** The changes after `seq`, a page at most. */
  async changesAfter(seq: number): Promise<Change[]> {
    const last = this.lastRead;
    if (last === undefined || this.recentAfter === undefined || seq < this.recentAfter || seq > last) {
      const changes = await this.shared(`changes ${seq}`, () => this.store.changes.after(seq, this.page));
      // The first reader starts the window; one ahead of it moves it on.
      if (this.lastRead === undefined || (this.lastRead < seq && changes.length > 0)) {
        this.recentAfter = seq;
        this.recent = changes.slice();
      }
      return changes;
    }
    if (seq === last) {
      const more = await this.shared(`changes ${last}`, () => this.store.changes.after(last, this.page));
      if (this.lastRead === last && more.length > 0) this.keep(more);
      // Another reader may have moved the window meanwhile: answer from what was read.
      return more.filter((c) => c.seq > seq);
    }
    const from = this.indexAfter(seq);
    return this.recent.slice(from, from + this.page);
  }

  private keep(more: readonly Change[]): void {
    for (const change of more) this.recent.push(change);
    // Forgotten a page or more at a time, not copied at every read.
    const over = this.recent.length - KEPT_CHANGES;
    if (over >= this.page) {
      this.recentAfter = (this.recent[over - 1] as Change).seq;
      this.recent = this.recent.slice(over);
    }
  }

  /** Index in `recent` of the first change after `seq`. */
  private indexAfter(seq: number): number {
    let low = 0;
    let high = this.recent.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.recent[mid] as Change).seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The state of each asset these changes are of, reflecting at least the change of it read last. */
  async assetStatesFor(changes: readonly Change[]): Promise<Map<string, KnownAsset>> {
    const need = new Map<string, number>();
    for (const c of changes) need.set(c.assetId, Math.max(need.get(c.assetId) ?? 0, c.seq));
    const waits: Array<Promise<void>> = [];
    const missing: string[] = [];
    for (const [id, seq] of need) {
      if ((this.states.get(id)?.through ?? -1) >= seq) continue;
      const coming = this.statesUnderWay.get(id);
      if (coming && coming.through >= seq) waits.push(coming.reading);
      else missing.push(id);
    }
    if (missing.length > 0) waits.push(this.readStates(missing, Math.max(this.lastRead ?? 0, ...need.values())));
    await Promise.all(waits);
    const out = new Map<string, KnownAsset>();
    for (const id of need.keys()) {
      const asset = this.states.get(id)?.asset;
      if (asset) out.set(id, asset);
    }
    return out;
  }

  /** Reads the states of `ids`, known to reflect every change up to `through` (read from the log before this read begins). */
  private readStates(ids: string[], through: number): Promise<void> {
    const reading = assetStates(this.store, ids).then((rows) => {
      if (this.states.size + ids.length > KEPT_STATES) this.states.clear();
      for (const id of ids) {
        const kept = this.states.get(id);
        if (kept && kept.through >= through) continue;
        const row = rows.get(id);
        const asset = row && {
          attributes: JSON.parse(row.attrs) as NgsiAttributes, site: row.site, experimenter: row.experimenter, experiment: row.experiment, latitude: row.latitude, longitude: row.longitude,
        };
        this.states.set(id, { through, asset });
      }
    }).finally(() => {
      for (const id of ids) if (this.statesUnderWay.get(id)?.reading === reading) this.statesUnderWay.delete(id);
    });
    for (const id of ids) this.statesUnderWay.set(id, { through, reading });
    return reading;
  }

  private shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    const known = this.underWay.get(key) as Promise<T> | undefined;
    if (known) return known;
    const reading = read().finally(() => this.underWay.delete(key));
    this.underWay.set(key, reading);
    return reading;
  }
}
