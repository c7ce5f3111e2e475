import { sql } from 'kysely';
import { MAX_NUMERIC_LENGTH } from '../../domain/aggregation.js';
import type { ReadingQueries } from '../ports.js';
import { everyReading, postgresReadingBlocks, seriesOf } from './reading-blocks.js';
import { exportReadings } from './reading-export.js';
import { packedPage } from './packed-page.js';

export const postgresReadingQueries: ReadingQueries = {
  numericValue() {
    // Doubles, as SQLite computes: both stores give the same aggregates.
    const max = sql.lit(MAX_NUMERIC_LENGTH);
    return sql<number | null>`case when length(attr_value) <= ${max} and attr_value ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$' then attr_value::float8 end`;
  },
  // PostgreSQL would read and sort each arm whole unless it stops at the page's end.
  walksStopAtPage: true,
  // Both in the history index (1800-readings-observed-in-key): read without the table.
  stored: { value: sql<string>`attr_value`, observedOffset: sql<number>`observed_time - recv_time` },
  packed: packedPage,
  series: seriesOf,
  // Each attribute's walk reads its last block of a page whole: a page of days, not hours, wastes little of it.
  exportPage: 16_384,
  exportReadings,
  every: everyReading,
  blocks: postgresReadingBlocks,
};
