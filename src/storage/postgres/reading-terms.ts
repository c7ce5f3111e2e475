import { RawStatement, type Session } from '../prepared-query.js';
import { connectionTerms, type ConnectionTerms, termNumbers } from '../reading-terms.js';

/**
 * Numbers the attribute names and types of readings that have no number yet
 * (migration 1700-readings-compact), in term order, so that two processes
 * adding the same new terms wait for each other instead of deadlocking. The
 * statements after it in the transaction find every term in reading_terms.
 */
export const ENSURE_TERMS = 'insert into reading_terms (term) select t from unnest($1::text[]) as t order by t on conflict (term) do nothing';

/**
 * ENSURE_TERMS, with the number of each term (those it added, and those the
 * statement's snapshot holds) and the transaction it ran in. A term another
 * transaction numbered and committed while this one waited on it is in
 * neither: NUMBERS, a statement of its own, sees it.
 */
const ENSURE = new RawStatement<{ term: string | null; id: number | null; added: boolean; txid: string }>(`
with added as (${ENSURE_TERMS} returning term, id)
select term, id, true as added, txid_current()::text as txid from added
union all select term, id, false, txid_current()::text from reading_terms where term = any($1::text[])
union all select null, null, false, txid_current()::text`);

const NUMBERS = new RawStatement<{ term: string; id: number }>('select term, id from reading_terms where term = any($1::text[])');

const byConnection = new WeakMap<object, ConnectionTerms<number>>();

/**
 * The numbers of the readings' names and types in reading_terms (termNumbers),
 * with a round trip only when the connection meets a term it has not seen
 * committed.
 */
export const termIds = (session: Session, readings: ReadonlyArray<{ name: string; type: string }>): Promise<(term: string) => number | undefined> =>
  termNumbers(connectionTerms(byConnection, session.conn), readings, async (wanted) => {
    const { rows } = await ENSURE.run(session, [wanted]);
    const numbers = new Map<string, number>();
    for (const row of rows) if (row.term !== null && row.id !== null) numbers.set(row.term, row.id);
    const missed = wanted.filter((term) => !numbers.has(term));
    if (missed.length > 0) for (const row of (await NUMBERS.run(session, [missed])).rows) numbers.set(row.term, row.id);
    return { transaction: rows[0]?.txid, added: rows.flatMap((row) => (row.added && row.term !== null ? [row.term] : [])), numbers };
  });
