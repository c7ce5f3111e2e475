import { RawStatement, type Session } from '../prepared-query.js';

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

const ENSURE = new RawStatement<never>(ENSURE_TERMS);

/** Numbers the names and types of `readings` not numbered yet. */
export async function ensureTerms(session: Session, readings: ReadonlyArray<{ name: string; type: string }>): Promise<void> {
  await ENSURE.run(session, [[...new Set(readings.flatMap((r) => [r.name, r.type]))]]);
}
