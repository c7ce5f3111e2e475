import { counterSegment } from './activity.js';

/**
 * The counters discovery reads (live assets per site, service, provider and
 * type, and per hour of their last reading) and how a batch of writes moves
 * them: grouped, so that a batch costs one counter write per group.
 */

export interface CounterKey {
  site: string;
  service: string;
  provider: string;
  type: string;
}

export const counterKey = (a: { site: string; service: string | null; provider: string | null; type: string }): CounterKey =>
  ({ site: a.site, service: counterSegment(a.service), provider: counterSegment(a.provider), type: a.type });

/** One string for a counter and some hours, to group by. */
const counterId = (key: CounterKey, hours: readonly number[]): string => [key.site, key.service, key.provider, key.type, ...hours].join('\u0000');

/**
 * The writes of one batch grouped by the counter (and hours) they move, with
 * how many fall in each group: one counter statement per group, not per write.
 */
export class Tally<T> {
  private readonly groups = new Map<string, { value: T; n: number }>();

  /** Counts one more under `key` and `hours`; `value` describes the group the first time. */
  add(key: CounterKey, hours: readonly number[], value: T): void {
    const id = counterId(key, hours);
    const group = this.groups.get(id);
    if (group) group.n += 1;
    else this.groups.set(id, { value, n: 1 });
  }

  groupsWithCounts(): Iterable<{ value: T; n: number }> {
    return this.groups.values();
  }
}

/** `n` assets of a counter whose last reading moved from hour `from` to hour `to`. */
export interface HourMove {
  key: CounterKey;
  from: number;
  to: number;
  n: number;
}

/** A counter's change in one activity hour. */
export interface ActivityDelta {
  key: CounterKey;
  hour: number;
  by: number;
}

/** Hour moves netted per counter and hour (zero nets left out). */
export function netActivityMoves(moves: Iterable<HourMove>): ActivityDelta[] {
  const net = new Map<string, ActivityDelta>();
  const add = (key: CounterKey, hour: number, by: number) => {
    const id = counterId(key, [hour]);
    const row = net.get(id);
    if (row) row.by += by;
    else net.set(id, { key, hour, by });
  };
  for (const { key, from, to, n } of moves) {
    add(key, from, -n);
    add(key, to, n);
  }
  return [...net.values()].filter((r) => r.by !== 0);
}
