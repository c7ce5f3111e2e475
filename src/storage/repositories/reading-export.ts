import { sql } from 'kysely';
import type { TimeIndex, TimeRange } from '../../domain/history-query.js';
import type { Store } from '../store.js';
import { listRecordedAttributes, timeColumn, type ReadingRecord } from './readings.js';

/**
 * The whole history of an asset (or of one attribute), read a page at a time
 * so that an export of any length holds only a few pages in memory. Each
 * attribute is walked by its (time, seq) key, never by offset: a page costs
 * the same at the start of the history and at its end. The walks of several
 * attributes are merged here, in the order of the chosen time, then seq.
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

/** Readings held per attribute walk at most. */
const WALK_PAGE = 4096;

interface Key {
  time: number;
  seq: number;
}

async function walkPage(store: Store, filter: ExportFilter, attrName: string, after: Key | undefined, limit: number): Promise<ExportedReading[]> {
  const time = sql.ref(timeColumn(filter.timeIndex));
  const range = filter.range ? sql`and ${time} >= ${filter.range.from} and ${time} <= ${filter.range.to}` : sql``;
  const from = after ? sql`and (${time} > ${after.time} or (${time} = ${after.time} and seq > ${after.seq}))` : sql``;
  const rows = await sql<{ recvTime: number | string; observedTime: number | string; seq: number | string; attrType: string; attrValue: string }>`
    select recv_time as "recvTime", observed_time as "observedTime", seq, attr_type as "attrType", attr_value as "attrValue"
    from readings
    where asset_seq = ${filter.assetSeq} and attr_name = ${attrName} ${range} ${from}
    order by ${time}, seq
    limit ${limit}`.execute(store.read);
  return rows.rows.map((r) => ({
    recvTime: Number(r.recvTime), observedTime: Number(r.observedTime), seq: Number(r.seq), attrName, attrType: r.attrType, attrValue: r.attrValue,
  }));
}

/** One attribute's readings, a page at a time. */
class Walk {
  private page: ExportedReading[] = [];
  private at = 0;
  private done = false;

  constructor(private readonly store: Store, private readonly filter: ExportFilter, private readonly attrName: string, private readonly limit: number) {}

  /** The next reading when its page is already read (most calls: no promise to wait for). */
  buffered(): ExportedReading | undefined {
    return this.page[this.at];
  }

  /** The next reading, without taking it; undefined at the end. */
  async peek(): Promise<ExportedReading | undefined> {
    if (this.at < this.page.length) return this.page[this.at];
    if (this.done) return undefined;
    const last = this.page[this.page.length - 1];
    const key = last && { time: this.filter.timeIndex === 'observed' ? last.observedTime : last.recvTime, seq: last.seq };
    this.page = await walkPage(this.store, this.filter, this.attrName, key, this.limit);
    this.at = 0;
    if (this.page.length < this.limit) this.done = true;
    return this.page[0];
  }

  take(): void {
    this.at++;
  }

  /** The rest of the current page and on, a page at a time; empty at the end. */
  async nextPage(): Promise<ExportedReading[]> {
    if (this.at >= this.page.length && !(await this.peek())) return [];
    const rest = this.page.slice(this.at);
    this.at = this.page.length;
    return rest;
  }
}

/** The readings, oldest first, in batches of at most `batch` (the readings held in memory at once, about). */
export async function* exportReadings(store: Store, filter: ExportFilter, batch = WALK_PAGE): AsyncGenerator<ExportedReading[]> {
  const names = filter.attrName !== undefined ? [filter.attrName] : await listRecordedAttributes(store, filter.assetSeq);
  // Memory stays bounded however many attributes the asset has: each walk's page shrinks with their number.
  const limit = Math.max(Math.min(batch, 64), Math.floor(batch / Math.max(1, names.length)));
  const walks = names.map((name) => new Walk(store, filter, name, limit));
  if (walks.length === 1) {
    // One attribute: its pages are the batches.
    const walk = walks[0] as Walk;
    for (let page = await walk.nextPage(); page.length > 0; page = await walk.nextPage()) yield page;
    return;
  }
  const timeOf = (r: ExportedReading) => (filter.timeIndex === 'observed' ? r.observedTime : r.recvTime);
  let out: ExportedReading[] = [];
  for (;;) {
    let best: { walk: Walk; reading: ExportedReading } | undefined;
    for (const walk of walks) {
      const reading = walk.buffered() ?? await walk.peek();
      if (reading && (!best || timeOf(reading) < timeOf(best.reading) || (timeOf(reading) === timeOf(best.reading) && reading.seq < best.reading.seq))) {
        best = { walk, reading };
      }
    }
    if (!best) break;
    best.walk.take();
    out.push(best.reading);
    if (out.length >= batch) {
      yield out;
      out = [];
    }
  }
  if (out.length > 0) yield out;
}
