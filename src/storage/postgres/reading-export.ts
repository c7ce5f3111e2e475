import { sql } from 'kysely';
import type { Executor, ExportWalk } from '../ports.js';
import { unpackReadings, type StoredReading } from '../shared/stored-readings.js';

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

const DAY_MS = 86_400_000;
const FAR = Number.MAX_SAFE_INTEGER;

/** A place in the readings: (time, seq), both inclusive as a bound. */
interface Key {
  time: number;
  seq: number;
}

const before = (a: StoredReading, b: StoredReading): number => a.recvTime - b.recvTime || a.seq - b.seq;
const atOrBefore = (r: StoredReading, key: Key): boolean => r.recvTime < key.time || (r.recvTime === key.time && r.seq <= key.seq);
const keyOf = (r: StoredReading): Key => ({ time: r.recvTime, seq: r.seq });
const beyond = (a: Key, b: Key): boolean => a.time > b.time || (a.time === b.time && a.seq > b.seq);

/** A block as its JSON gives it: name, first time and seq, then its arrays. */
type BlockJson = [number, number, number, number[], number[], number[], number[], Array<string | null>];

/** Blocks read at a time: about `batch` readings' worth, and past the first block of every series of a day. */
const blocksPerStep = (batch: number, series: number) => Math.max(series + 1, Math.ceil(batch / 1440) + 1);

export async function* exportReadings(db: Executor, walk: ExportWalk, batch: number): AsyncGenerator<StoredReading[]> {
  const { assetSeq, nameIds } = walk;
  if (nameIds.length === 0) return;
  const from = walk.range?.from ?? -FAR;
  const to = walk.range?.to ?? FAR;
  const end: Key = { time: to, seq: FAR };
  const names = sql.join(nameIds);
  const perStep = blocksPerStep(batch, nameIds.length);
  // A block holds one day: one that ends at or after `from` begins less than a day before it.
  let blockKey: Key = { time: from === -FAR ? -FAR : from - DAY_MS, seq: FAR };
  let blocksDone = false;
  /** Every packed reading at or before it has been read. */
  let blockBound: Key = { time: from - 1, seq: FAR };
  /** Every reading at or before it has been given. */
  let given: Key = { time: from - 1, seq: FAR };
  let waiting: StoredReading[] = [];

  while (beyond(end, given)) {
    const read: StoredReading[] = [];
    if (!blocksDone && !beyond(blockBound, given)) {
      const { rows } = await sql<{ blocks: string }>`select coalesce(json_agg(json_build_array(name_id, first_time, first_seq,
          time_offsets, seq_offsets, observed_offsets, type_ids, attr_values) order by first_time, first_seq)::text, '[]') as blocks
        from (select * from reading_blocks where asset_seq = ${assetSeq} and (first_time, first_seq) > (${blockKey.time}, ${blockKey.seq})
          and first_time <= ${to} and name_id in (${names}) and last_time >= ${from}
          order by first_time, first_seq limit ${perStep}) as b`.execute(db);
      const blocks = JSON.parse(rows[0]?.blocks ?? '[]') as BlockJson[];
      for (const [nameId, firstTime, firstSeq, times, seqs, observed, types, values] of blocks) {
        for (let i = 0; i < times.length; i++) {
          const recvTime = firstTime + times[i]!;
          if (recvTime < from || recvTime > to) continue;
          read.push({ recvTime, seq: firstSeq + seqs[i]!, attrName: nameId, attrType: types[i]!, attrValue: values[i]!, observedTime: observed[i]! });
        }
      }
      const last = blocks[blocks.length - 1];
      if (blocks.length < perStep || last === undefined) {
        blocksDone = true;
        blockBound = end;
      } else {
        blockKey = { time: last[1], seq: last[2] };
        // No block not yet read holds a reading before the last one read begins.
        blockBound = { time: last[1] - 1, seq: FAR };
      }
    }
    const upTo: Key = beyond(blockBound, end) ? end : blockBound;
    const arms = nameIds.map((nameId) => sql`(select recv_time, seq, name_id, type_id, observed_time, attr_value from readings
        where asset_seq = ${assetSeq} and name_id = ${nameId} and (recv_time, seq) > (${given.time}, ${given.seq})
          and (recv_time, seq) <= (${upTo.time}, ${upTo.seq}) order by recv_time, seq limit ${batch})`);
    const { rows: packed } = await sql<{ packed: string | null }>`select string_agg(concat_ws(',', recv_time, seq, name_id, type_id, observed_time - recv_time,
        case when strpos(attr_value, E'\\n') > 0 or left(attr_value, 1) = '"' then to_json(attr_value)::text else attr_value end), E'\\n') as packed
      from (select * from (${sql.join(arms, sql` union all `)}) as arms order by recv_time, seq limit ${batch}) as p`.execute(db);
    const stored = unpackReadings(packed[0]?.packed ?? null);
    // A full page of rows gives readings only up to its last one: the rest of the rows come at the next step.
    const lastRow = stored[stored.length - 1];
    const bound = stored.length === batch && lastRow !== undefined ? keyOf(lastRow) : upTo;
    const all = waiting.concat(read, stored).sort(before);
    let cut = 0;
    while (cut < all.length && atOrBefore(all[cut]!, bound)) cut++;
    waiting = all.slice(cut);
    given = bound;
    if (cut > 0) yield all.slice(0, cut);
  }
}
