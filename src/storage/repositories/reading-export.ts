import type { TimeIndex, TimeRange } from '../../domain/history-query.js';
import type { Store } from '../store.js';
import { listRecordedAttributes, mergedReadings, timeOn, type ReadingKey, type ReadingRecord } from './readings.js';

/**
 * The whole history of an asset (or of one attribute), read a page at a time
 * so that an export of any length holds only a page in memory. Pages follow
 * one another by the (time, seq) of their last reading, never by offset: a
 * page costs the same at the start of the history and at its end. Each page
 * is one statement that merges the attributes' walks (mergedReadings).
 */

export interface ExportedReading extends ReadingRecord {
  observedTime: number;
  seq: number;
}

export interface ExportFilter {
  assetSeq: number;
  /** One attribute, or every attribute recorded for the asset. */
  attrName: string | undefined;
  range: TimeRange | undefined;
  timeIndex: TimeIndex;
}

/** Readings one page holds, unless the store reads bigger ones (ReadingQueries.exportPage). */
const EXPORT_PAGE = 4096;

/**
 * The readings, oldest first, in pages of at most `batch` (the readings held in memory at once, about),
 * each given as `shape` makes it as soon as it is read: a page's readings die young (the next
 * page is read ahead, and what waits meanwhile is its shape, such as the bytes it is written as).
 */
export async function* exportPages<T>(
  store: Store, filter: ExportFilter, shape: (page: ExportedReading[]) => T, batch = store.dialect.readings.exportPage ?? EXPORT_PAGE,
): AsyncGenerator<T> {
  const names = filter.attrName !== undefined ? [filter.attrName] : await listRecordedAttributes(store, filter.assetSeq);
  const merged = { assetSeq: filter.assetSeq, range: filter.range, timeIndex: filter.timeIndex, names, withObservedTime: true, scan: true };
  interface Shaped { shaped: T | undefined; after: ReadingKey | undefined }
  // Every reading comes back with its observation time (withObservedTime).
  const read = (after: ReadingKey | undefined): Promise<Shaped> => {
    const page = (mergedReadings(store, merged, 'asc', { limit: batch, offset: 0, after }) as Promise<ExportedReading[]>).then((readings): Shaped => {
      const last = readings[readings.length - 1];
      return {
        shaped: readings.length > 0 ? shape(readings) : undefined,
        after: last !== undefined && readings.length === batch ? { time: timeOn(filter.timeIndex, last), seq: last.seq } : undefined,
      };
    });
    // A page read ahead for a download that ends before it is wanted fails unseen.
    page.catch(() => undefined);
    return page;
  };
  let next = read(undefined);
  for (;;) {
    const { shaped, after } = await next;
    // The next page is read while this one is written: a store on its own server works meanwhile.
    if (after) next = read(after);
    if (shaped !== undefined) yield shaped;
    if (!after) return;
  }
}
