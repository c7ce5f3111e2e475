import type { HistoryQuery, TimeIndex } from '../../domain/history-query.js';
import { rollupGranuleOf } from '../../domain/history-rollups.js';
import { ByteBoundedLru } from '../../http/byte-bounded-lru.js';
import { countReadings, type ReadingsFilter } from '../../storage/repositories/readings.js';
import type { Store } from '../../storage/store.js';

/** Bytes of answers kept at most, and the largest answer worth keeping. */
const MAX_BYTES = 32 * 1024 * 1024;
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Aggregates of the raw readings read every reading of their range: a count of up to this many still costs less. */
const AGGREGATE_COUNT_CAP = 50_000;

interface Kept {
  /** How many readings the range held when the answer was read. */
  readings: number;
  /** How many writes had dropped expired history then. */
  drops: number;
  /** Undefined: the range was asked once, and nothing is kept of it yet. */
  body: Buffer | undefined;
}

/** What keeping an answer costs besides its body (its key and record), so that ranges asked once are bounded too. */
const KEPT_COST = 256;
const ASKED_ONCE: Kept = { readings: -1, drops: -1, body: undefined };
/** A range that held more readings than are worth counting: read each time, uncounted (only drops of expired history would make it fewer). */
const TOO_MANY: Kept = { readings: Number.POSITIVE_INFINITY, drops: -1, body: undefined };

/**
 * How many readings of the range may be counted to check a kept answer, or
 * undefined when the answer is not kept: without a range (the newest readings
 * move), or where counting the range would cost more than reading the answer
 * again (a long range, of which the page reads the start; aggregates answered
 * from the rollups, which read a row an hour or a day where the count would
 * walk every reading).
 */
export function countCap(query: HistoryQuery, timeIndex: TimeIndex | undefined): number | undefined {
  if (query.range === undefined) return undefined;
  if (query.kind === 'aggregates') return rollupGranuleOf(query.aggregation.periodMs, timeIndex) === undefined ? AGGREGATE_COUNT_CAP : undefined;
  const { selection } = query;
  return 2 * (selection.kind === 'page' ? selection.offset + selection.limit : selection.count);
}

/**
 * Rendered answers of time ranges, kept while their range holds the same
 * readings: unlike the answers kept until anything is committed
 * (http/answer-cache.ts), these outlive the writes of a live city. Readings
 * are only ever added, never changed, and removed only by the writes that drop
 * expired history, which are counted: while none ran, the readings of a range
 * later on include those it held before, so if it holds as many, it holds the
 * same ones. Counting them walks one index and reads no
 * row, where answering reads and renders every one: dashboards that ask the
 * same ranges again and again are answered at the cost of the count. The count
 * is taken before the read: a reading added in between leaves the kept count
 * too low, so the next request reads again, never the other way round. Correct
 * whatever process writes, since the store itself is counted. A range asked
 * for the first time is read without counting, and only remembered: most such
 * ranges (those that end at the present) are never asked again. A range found
 * to hold more readings than the count may walk is not counted again.
 */
export class HistoryAnswers {
  private readonly kept = new ByteBoundedLru<Kept>(MAX_BYTES, MAX_ANSWER_BYTES, (k) => KEPT_COST + (k.body?.length ?? 0));

  async answer(store: Store, filter: ReadingsFilter & { attrName: string }, query: HistoryQuery, key: string, read: () => Promise<Buffer>): Promise<Buffer> {
    const cap = countCap(query, filter.timeIndex);
    const { range } = filter;
    if (cap === undefined || range === undefined) return read();
    const kept = this.kept.get(key);
    if (kept === undefined) {
      this.kept.set(key, ASKED_ONCE);
      return read();
    }
    if (kept === TOO_MANY) return read();
    const { readings, drops } = await countReadings(store, { ...filter, range }, cap);
    if (readings > cap) {
      this.kept.set(key, TOO_MANY);
      return read();
    }
    if (kept.body !== undefined && kept.readings === readings && kept.drops === drops) return kept.body;
    const body = await read();
    this.kept.set(key, { readings, drops, body });
    return body;
  }
}
