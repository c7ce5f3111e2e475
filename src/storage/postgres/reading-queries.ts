import { sql } from 'kysely';
import { MAX_NUMERIC_LENGTH } from '../../domain/aggregation.js';
import type { ReadingQueries } from '../ports.js';

export const postgresReadingQueries: ReadingQueries = {
  numericValue() {
    // Doubles, as SQLite computes: both stores give the same aggregates.
    const max = sql.lit(MAX_NUMERIC_LENGTH);
    return sql<number | null>`case when length(attr_value) <= ${max} and attr_value ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$' then attr_value::float8 end`;
  },
  // PostgreSQL would read and sort each arm whole unless it stops at the page's end.
  walksStopAtPage: true,
};
