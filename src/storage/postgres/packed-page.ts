import { sql, type Expression } from 'kysely';

/**
 * The rows of `page` (recvTime, seq, attrName, attrType, observedTime as an offset, attrValue) as
 * one text, as ../shared/stored-readings.ts reads it back (ReadingQueries.packed): parsing a row
 * cost the driver several times what the server spends on it. The aggregate takes the page's rows
 * in the order the page gives them (sorting them again cost a third of the statement); the reader
 * checks that order where it matters (../repositories/readings.ts).
 */
export function packedPage(page: Expression<unknown>) {
  return sql<{ packed: string | null }>`select string_agg(concat_ws(',', "recvTime", seq, "attrName", "attrType", "observedTime",
    case when strpos("attrValue", E'\\n') > 0 or left("attrValue", 1) = '"' then to_json("attrValue")::text else "attrValue" end),
    E'\\n') as packed from (${page}) as p`;
}
