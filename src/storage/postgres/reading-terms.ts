import { RawStatement, type Session } from '../prepared-query.js';
import { connectionTerms, type ConnectionTerms, termsOf } from '../reading-terms.js';

/**
 * Numbers the attribute names and types of readings that have no number yet
 * (migration 1700-readings-compact), in term order, so that two processes
 * adding the same new terms wait for each other instead of deadlocking. The
 * statements after it in the transaction find every term in reading_terms.
 */
export const ENSURE_TERMS = 'insert into reading_terms (term) select t from unnest($1::text[]) as t order by t on conflict (term) do nothing';

/**
 * A term's number, as a statement reads it for a reading: a term with no
 * number gives NULL, which no reading accepts, so a reading is never dropped
 * quietly.
 */
export const termId = (term: string): string => `(select id from reading_terms where term = ${term})`;

/** ENSURE_TERMS, with the terms it added and the transaction it ran in. */
const ENSURE = new RawStatement<{ term: string | null; txid: string }>(`
with added as (${ENSURE_TERMS} returning term)
select term, txid_current()::text as txid from added
union all select null, txid_current()::text`);

const byConnection = new WeakMap<object, ConnectionTerms<true>>();

/**
 * Numbers the names and types of `readings` not numbered yet, with a round
 * trip only when the connection meets a term it has not seen committed
 * (ConnectionTerms).
 */
export async function ensureTerms(session: Session, readings: ReadonlyArray<{ name: string; type: string }>): Promise<void> {
  const known = connectionTerms(byConnection, session.conn);
  const wanted = known.unknown(termsOf(readings));
  if (wanted.length === 0) return;
  const { rows } = await ENSURE.run(session, [wanted]);
  known.numbered(rows[0]?.txid, rows.flatMap((row) => (row.term === null ? [] : [row.term])));
  for (const term of wanted) known.found(term, true);
}
