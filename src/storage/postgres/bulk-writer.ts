import pg from 'pg';
import type { BulkAsset, BulkReading, BulkWriter } from '../bulk-writer.js';
import { concatRows } from '../prepared-query.js';
import { termsOf } from '../reading-terms.js';
import { ENSURE_TERMS, TERM_NUMBERS } from './reading-terms.js';

/** Tables whose secondary indexes are dropped during the load and built again after it (sorting beats inserting). */
const REINDEXED_TABLES = ['assets', 'readings'];

/**
 * A bulk writer on its own PostgreSQL connection, for a database nothing else uses meanwhile: each batch is one INSERT …
 * SELECT FROM unnest(arrays), so one statement carries thousands of rows with a
 * handful of parameters; positions go into the geography column as they are
 * inserted.
 */
export async function openPostgresBulkWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A lost load is simply made again: no need to wait for each commit to reach the disk.
  await client.query('set synchronous_commit = off');
  const next = await client.query<{ next: string }>('select coalesce(max(seq), 0) + 1 as next from assets');
  const firstSeq = Number(next.rows[0]?.next ?? 1);
  // Indexes declared by the migrations (not those backing a constraint), whatever they are today: dropped now, built after the load.
  const indexes = await client.query<{ name: string; definition: string }>(
    `select i.indexname as name, i.indexdef as definition from pg_indexes i
     where i.schemaname = current_schema() and i.tablename = any($1)
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
    [REINDEXED_TABLES],
  );
  for (const index of indexes.rows) await client.query(`drop index "${index.name}"`);

  const inTransaction = async (work: () => Promise<void>) => {
    await client.query('begin');
    try {
      await work();
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    }
  };

  const column = <T, V>(rows: T[], pick: (row: T) => V): V[] => rows.map(pick);

  // The names and types of readings are numbered here, as the writers number them (migration 1700-readings-compact).
  const terms = new Map<string, number>();
  const keepTerms = (rows: ReadonlyArray<{ id: number; term: string }>) => {
    for (const row of rows) terms.set(row.term, row.id);
  };
  keepTerms((await client.query<{ id: number; term: string }>('select id, term from reading_terms')).rows);
  const numberTerms = async (wanted: string[]) => {
    await client.query(ENSURE_TERMS, [wanted]);
    keepTerms((await client.query<{ id: number; term: string }>(TERM_NUMBERS, [wanted])).rows);
  };

  return {
    firstSeq,
    async addAssets(rows: BulkAsset[]) {
      if (rows.length === 0) return;
      const attributes = concatRows(rows, (a) => a.attributeTypes.map(([name, type]) => ({ seq: a.seq, name, type })));
      await inTransaction(async () => {
        await client.query(
          `insert into assets (seq, id, type, site, service, provider, grp, name, experimenter, experiment, attrs, latitude, longitude, recorded_at, last_reading_at, created_at, geog)
           select t.*, ST_SetSRID(ST_MakePoint(t.longitude, t.latitude), 4326)::geography
           from unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[],
                       $12::float8[], $13::float8[], $14::bigint[], $15::bigint[], $16::bigint[])
             as t(seq, id, type, site, service, provider, grp, name, experimenter, experiment, attrs, latitude, longitude, recorded_at, last_reading_at, created_at)`,
          [
            column(rows, (a) => a.seq), column(rows, (a) => a.id), column(rows, (a) => a.type), column(rows, (a) => a.site),
            column(rows, (a) => a.service), column(rows, (a) => a.provider), column(rows, (a) => a.group), column(rows, (a) => a.name),
            column(rows, (a) => a.experimenter), column(rows, (a) => a.experiment), column(rows, (a) => a.attrs),
            column(rows, (a) => a.latitude), column(rows, (a) => a.longitude), column(rows, (a) => a.recordedAt),
            column(rows, (a) => a.lastReadingAt), column(rows, (a) => a.createdAt),
          ],
        );
        await client.query(
          'insert into asset_attributes (asset_seq, name, type) select * from unnest($1::bigint[], $2::text[], $3::text[])',
          [column(attributes, (r) => r.seq), column(attributes, (r) => r.name), column(attributes, (r) => r.type)],
        );
      });
    },
    async addReadings(rows: BulkReading[]) {
      if (rows.length === 0) return;
      const unnumbered = termsOf(rows).filter((term) => !terms.has(term));
      if (unnumbered.length > 0) await numberTerms(unnumbered);
      await client.query(
        `insert into readings (asset_seq, name_id, recv_time, observed_time, type_id, attr_value)
         select r.asset_seq, r.name_id, r.recv_time, r.observed_time, r.type_id, r.attr_value from unnest($1::bigint[], $2::int4[], $3::bigint[], $4::bigint[], $5::int4[], $6::text[]) with ordinality
           as r(asset_seq, name_id, recv_time, observed_time, type_id, attr_value, ord)
         order by r.ord`,
        [column(rows, (r) => r.assetSeq), column(rows, (r) => terms.get(r.name)), column(rows, (r) => r.recvTime), column(rows, (r) => r.observedTime),
          column(rows, (r) => terms.get(r.type)), column(rows, (r) => r.value)],
      );
    },
    async finish() {
      await client.query(`set maintenance_work_mem = '512MB'`);
      for (const index of indexes.rows) await client.query(index.definition);
      // The seqs were given explicitly: the identity must continue after them.
      await client.query(`select setval(pg_get_serial_sequence('assets', 'seq'), (select coalesce(max(seq), 0) + 1 from assets), false)`);
      // What autovacuum would do after such a load, done at once: planner statistics, and the visibility
      // map that lets index-only scans (one attribute's history, live city positions) skip the table.
      await client.query('vacuum analyze');
    },
    async close() {
      await client.end();
    },
  };
}
