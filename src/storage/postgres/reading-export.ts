import { sql } from 'kysely';
import type { Executor, ExportWalk } from '../ports.js';
import { DAY_MS } from '../../domain/history-rollups.js';
import { unpackReadings, type StoredReading } from '../shared/stored-readings.js';
import { packedPage } from './packed-page.js';

/**
 * An export's readings on PostgreSQL, oldest first. Unnesting packed blocks,
 * sorting them and writing them out a row at a time is most of what a page
 * of merged walks costs the server: here the blocks come as they are stored
 * (their arrays, in block order by the index on time) and are merged with
 * the rows still in `readings` in the process, which has the time to spare
 * while the page before is written to the client.
 *
 * Each step reads the next blocks of the asset by first time. A block holds
 * readings of one series and day, so once blocks up to one that starts at T
 * are read, every packed reading before T is among them: the readings up to
 * there, with the rows up to there, are given in order, and those of the
 * blocks past it wait for the next step.
 */

/** Readings given at once: a slice is written out before the next is made. */
const SLICE = 1024;
const FAR = Number.MAX_SAFE_INTEGER;

/** A place in the readings: (time, seq), both inclusive as a bound. */
interface Key {
  time: number;
  seq: number;
}

const beyond = (a: Key, b: Key): boolean => a.time > b.time || (a.time === b.time && a.seq > b.seq);

/** A block as its JSON gives it: name, first time and seq, then its arrays. */
type BlockJson = [number, number, number, number[], number[], number[], number[], Array<string | null>];

/**
 * The readings of one source (a block, or the rows of a step) from the next one on, in order: its
 * head's key is at hand without making the reading, which is made only when it is given.
 */
interface Source {
  time: number;
  seq: number;
  done: boolean;
  take(): StoredReading;
}

function blockSource(block: BlockJson, from: number): Source {
  const [nameId, firstTime, firstSeq, times, seqs, observed, types, values] = block;
  let i = 0;
  const source: Source = {
    time: 0, seq: 0, done: false,
    take() {
      const reading = { recvTime: source.time, seq: source.seq, attrName: nameId, attrType: types[i]!, attrValue: values[i]!, observedTime: observed[i]! };
      i++;
      place();
      return reading;
    },
  };
  const place = () => {
    source.done = i >= times.length;
    if (source.done) return;
    source.time = firstTime + times[i]!;
    source.seq = firstSeq + seqs[i]!;
  };
  place();
  while (!source.done && source.time < from) source.take();
  return source;
}

function rowsSource(rows: readonly StoredReading[]): Source {
  let i = 0;
  const source: Source = {
    time: 0, seq: 0, done: false,
    take() {
      const reading = rows[i++]!;
      place();
      return reading;
    },
  };
  const place = () => {
    const head = rows[i];
    source.done = head === undefined;
    if (head === undefined) return;
    source.time = head.recvTime;
    source.seq = head.seq;
  };
  place();
  return source;
}

/** The next `count` blocks of the walk past `after` (their first time and seq), in order. */
async function nextBlocks(db: Executor, walk: ExportWalk, after: Key, count: number): Promise<BlockJson[]> {
  const from = walk.range?.from ?? -FAR;
  const to = walk.range?.to ?? FAR;
  // A block a row, each parsed on its own (one text for them all would be one large string).
  const { rows } = await sql<{ block: string }>`select json_build_array(name_id, first_time, first_seq,
      time_offsets, seq_offsets, observed_offsets, type_ids, attr_values)::text as block
    from (select * from reading_blocks where asset_seq = ${walk.assetSeq} and (first_time, first_seq) > (${after.time}, ${after.seq})
      and first_time <= ${to} and name_id in (${sql.join(walk.nameIds)}) and last_time >= ${from}
      order by first_time, first_seq limit ${count}) as b
    order by first_time, first_seq`.execute(db);
  return rows.map((row) => JSON.parse(row.block) as BlockJson);
}

/** The walk's rows past `after` and up to `upTo`, at most `limit`, in order. */
async function nextRows(db: Executor, walk: ExportWalk, after: Key, upTo: Key, limit: number): Promise<StoredReading[]> {
  const arms = walk.nameIds.map((nameId) => sql`(select recv_time as "recvTime", seq, name_id as "attrName", type_id as "attrType",
        observed_time - recv_time as "observedTime", attr_value as "attrValue" from readings
      where asset_seq = ${walk.assetSeq} and name_id = ${nameId} and (recv_time, seq) > (${after.time}, ${after.seq})
        and (recv_time, seq) <= (${upTo.time}, ${upTo.seq}) order by recv_time, seq limit ${limit})`);
  const { rows } = await packedPage(sql`select * from (${sql.join(arms, sql` union all `)}) as arms order by "recvTime", seq limit ${limit}`).execute(db);
  return unpackReadings(rows[0]?.packed ?? null);
}

/** Blocks read at a time: about `batch` readings' worth, and past the first block of every series of a day. */
const blocksPerStep = (batch: number, series: number) => Math.max(series + 1, Math.ceil(batch / 1440) + 1);

export async function* exportReadings(db: Executor, walk: ExportWalk, batch: number): AsyncGenerator<StoredReading[]> {
  const { nameIds } = walk;
  if (nameIds.length === 0) return;
  const from = walk.range?.from ?? -FAR;
  const to = walk.range?.to ?? FAR;
  const end: Key = { time: to, seq: FAR };
  const perStep = blocksPerStep(batch, nameIds.length);
  // A block holds one day: one that ends at or after `from` begins less than a day before it.
  let blockKey: Key = { time: from === -FAR ? -FAR : from - DAY_MS, seq: FAR };
  let blocksDone = false;
  /** Every packed reading at or before it has been read. */
  let blockBound: Key = { time: from - 1, seq: FAR };
  /** Every reading at or before it has been given. */
  let given: Key = { time: from - 1, seq: FAR };
  /** Blocks read whose readings past `given` are still to be given. */
  let blocks: Source[] = [];

  while (beyond(end, given)) {
    if (!blocksDone && !beyond(blockBound, given)) {
      const read = await nextBlocks(db, walk, blockKey, perStep);
      for (const block of read) blocks.push(blockSource(block, from));
      const last = read[read.length - 1];
      if (read.length < perStep || last === undefined) {
        blocksDone = true;
        blockBound = end;
      } else {
        blockKey = { time: last[1], seq: last[2] };
        // No block not yet read holds a reading before the last one read begins.
        blockBound = { time: last[1] - 1, seq: FAR };
      }
    }
    const upTo: Key = beyond(blockBound, end) ? end : blockBound;
    const stored = await nextRows(db, walk, given, upTo, batch);
    // A full page of rows gives readings only up to its last one: the rest of the rows come at the next step.
    const lastRow = stored[stored.length - 1];
    const bound = stored.length === batch && lastRow !== undefined ? { time: lastRow.recvTime, seq: lastRow.seq } : upTo;
    given = bound;
    // Readings are made only as they are given, a slice at a time: what a step holds meanwhile is its blocks' arrays.
    const sources = [...blocks, rowsSource(stored)];
    let slice: StoredReading[] = [];
    for (;;) {
      let next: Source | undefined;
      for (const source of sources) {
        if (!source.done && (next === undefined || beyond(next, source))) next = source;
      }
      if (next === undefined || beyond(next, bound)) break;
      slice.push(next.take());
      if (slice.length === SLICE) {
        yield slice;
        slice = [];
      }
    }
    if (slice.length > 0) yield slice;
    blocks = blocks.filter((source) => !source.done);
  }
}
