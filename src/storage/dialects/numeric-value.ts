import { sql, type RawBuilder } from 'kysely';
import { MAX_NUMERIC_LENGTH } from '../../domain/aggregation.js';

/**
 * A reading's text value as a number, or NULL when it is not one; the grammar is
 * `isNumericValue` of src/domain/aggregation.ts (a JSON number of at most
 * MAX_NUMERIC_LENGTH characters, exponent of at most two digits, so that it
 * always fits a double), written once
 * per store because only PostgreSQL has regular expressions.
 */
export function numericReadingValue(dialect: 'sqlite' | 'postgres'): RawBuilder<number | null> {
  const max = sql.lit(MAX_NUMERIC_LENGTH);
  if (dialect === 'postgres') {
    // Doubles, as SQLite computes: both stores give the same aggregates.
    return sql<number | null>`case when length(attr_value) <= ${max} and attr_value ~ '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]{1,2})?$' then attr_value::float8 end`;
  }
  // RFC 8259 JSON made only of number characters is a number; json_valid rejects
  // leading zeros, a leading '+', '.5' and the like, exactly as the grammar does.
  return sql<number | null>`case when length(attr_value) <= ${max} and attr_value not glob '*[^-+.eE0-9]*' and json_valid(attr_value) and attr_value not glob '*[eE]*[0-9][0-9][0-9]*' then cast(attr_value as real) end`;
}
