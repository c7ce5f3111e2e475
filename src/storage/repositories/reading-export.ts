import type { TimeIndex, TimeRange } from '../../domain/history-query.js';
import type { Store } from '../store.js';
import { fromStored, listRecordedAttributes, mergedReadings, named, timeOn, type ReadingKey, type ReadingRecord } from './readings.js';

/**
 * The whole history of an asset (or of one attribute), read a page at a time
 * so that an export of any length holds only a page in memory. Pages follow
 * one another by the (time, seq) of their last reading, never by offset: a
 * page costs the same at the start of the history and at its end. Each page
 * is one statement that merges the attributes' walks (mergedReadings), unless
 * the store has a reader of its own for exports (ReadingQueries.exportReadings).
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

/** The readings of an export, oldest first, a page at a time, as the store reads them best. */
async function* readPages(store: Store, filter: ExportFilter, names: readonly string[], batch: number): AsyncGenerator<ExportedReading[]> {
  const { exportReadings } = store.dialect.readings;
  if (exportReadings && filter.timeIndex === 'received') {
    const nameIds = await store.terms.idsOf(names);
    for await (const page of exportReadings(store.scan, { assetSeq: filter.assetSeq, nameIds, range: filter.range }, batch)) {
      yield await named(store, fromStored(page));
    }
    return;
  }
  // Every reading comes back with its observation time (withObservedTime).
  const merged = { assetSeq: filter.assetSeq, range: filter.range, timeIndex: filter.timeIndex, names, withObservedTime: true, scan: true };
  let after: ReadingKey | undefined;
  for (;;) {
    const readings = await mergedReadings(store, merged, 'asc', { limit: batch, offset: 0, after }) as ExportedReading[];
    if (readings.length > 0) yield readings;
    const last = readings[readings.length - 1];
    if (last === undefined || readings.length < batch) return;
    after = { time: timeOn(filter.timeIndex, last), seq: last.seq };
  }
}

/**
 * The readings, oldest first, in pages of about `batch` (the readings held in memory at once),
 * each given as `shape` makes it as soon as it is read: a page's readings die young (the next
 * page is read ahead, and what waits meanwhile is its shape, such as the bytes it is written as).
 */
export async function* exportPages<T>(
  store: Store, filter: ExportFilter, shape: (page: ExportedReading[]) => T, batch = store.dialect.readings.exportPage ?? EXPORT_PAGE,
): AsyncGenerator<T> {
  const names = filter.attrName !== undefined ? [filter.attrName] : await listRecordedAttributes(store, filter.assetSeq);
  const pages = readPages(store, filter, names, batch);
  const read = (): Promise<T | undefined> => {
    const page = pages.next().then((next) => (next.done ? undefined : shape(next.value)));
    // A page read ahead for a download that ends before it is wanted fails unseen.
    page.catch(() => undefined);
    return page;
  };
  let next = read();
  for (;;) {
    const shaped = await next;
    if (shaped === undefined) return;
    // The next page is read while this one is written: a store on its own server works meanwhile.
    next = read();
    yield shaped;
  }
}
