import { RawStatement, type Session } from '../prepared-query.js';
import { connectionTerms, type ConnectionTerms, termNumbers } from '../reading-terms.js';

/**
 * Numbers the attribute names and types of readings that have no number yet
 * (migration 1700-readings-compact), in term order, so that two processes
 * adding the same new terms wait for each other instead of deadlocking. The
 * statements after it in the transaction find every term in reading_terms.
 */
export const ENSURE_TERMS = 'insert into reading_terms (term) select t from unnest($1::text[]) as t order by t on conflict (term) do nothing';

/** The numbers of the terms of $1 that reading_terms holds. */
export const TERM_NUMBERS = 'select id, term from reading_terms where term = any($1::text[])';

/** ENSURE_TERMS, with the terms it added and the transaction it ran in. */
const ENSURE = new RawStatement<{ term: string | null; txid: string }>(`
with added as (${ENSURE_TERMS} returning term)
select term, txid_current()::text as txid from added
union all select null, txid_current()::text`);

/**
 * Read in a statement of its own, after ENSURE: it sees the terms this
 * transaction numbered and those another committed while ENSURE waited on them.
 */
const NUMBERS = new RawStatement<{ id: number; term: string }>(TERM_NUMBERS);

const byConnection = new WeakMap<object, ConnectionTerms<number>>();

/**
 * The numbers of the readings' names and types in reading_terms (termNumbers),
 * with a round trip only when the connection meets a term it has not seen
 * committed.
 */
export const termIds = (session: Session, readings: ReadonlyArray<{ name: string; type: string }>): Promise<(term: string) => number | undefined> =>
  termNumbers(connectionTerms(byConnection, session.conn), readings, async (wanted) => {
    // Sent together, they run one after the other on the connection.
    const [ensured, found] = await Promise.all([ENSURE.run(session, [wanted]), NUMBERS.run(session, [wanted])]);
    return {
      transaction: ensured.rows[0]?.txid,
      added: ensured.rows.flatMap((row) => (row.term === null ? [] : [row.term])),
      numbers: found.rows.map((row) => [row.term, row.id] as const),
    };
  });
