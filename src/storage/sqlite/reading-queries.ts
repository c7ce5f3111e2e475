import { sql } from 'kysely';
import { MAX_NUMERIC_LENGTH } from '../../domain/aggregation.js';
import type { ReadingQueries } from '../ports.js';
import { receivedIn } from '../shared/received-in.js';

export const sqliteReadingQueries: ReadingQueries = {
  numericValue() {
    // RFC 8259 JSON made only of number characters is a number; json_valid rejects
    // leading zeros, a leading '+', '.5' and the like, exactly as the grammar does.
    const max = sql.lit(MAX_NUMERIC_LENGTH);
    return sql<number | null>`case when length(attr_value) <= ${max} and attr_value not glob '*[^-+.eE0-9]*' and json_valid(attr_value) and attr_value not glob '*[eE]*[0-9][0-9][0-9]*' then cast(attr_value as real) end`;
  },
  // SQLite merges the plain arms of a compound select as they come from the index.
  walksStopAtPage: false,
  // The stored columns behind the virtual ones (1700-readings-compact), which cost more to read than the readings themselves.
  stored: { value: sql<string | null>`sent_value`, observedOffset: sql<number>`observed_offset` },
  // Every reading is a row of the table.
  series: (db, walk) => receivedIn(db, walk),
  every: sql`readings`,
};
