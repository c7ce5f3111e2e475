import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The distinct names and types of readings: the terms a write of them needs numbered. */
export function termsOf(readings: ReadonlyArray<{ name: string; type: string }>): string[] {
  const terms = new Set<string>();
  for (const r of readings) terms.add(r.name).add(r.type);
  return [...terms];
}

/**
 * What one write connection knows of reading_terms between its transactions,
 * to number only the terms it has not seen committed (each dialect keeps one
 * per connection, with what it needs of each term as `V`). No term is ever
 * deleted or renumbered, so a committed term is kept for good; a term the
 * transaction under way numbered is kept apart, since a rollback may take it
 * back and its number go to another. A term found already there is
 * committed, unless this very transaction numbered it.
 */
export class ConnectionTerms<V> {
  private readonly committed = new Map<string, V>();
  /** The transaction of `added` (undefined: none known, so that nothing found is taken as committed). */
  private transaction: unknown;
  private readonly added = new Set<string>();

  /** The terms of `terms` not seen committed. */
  unknown(terms: readonly string[]): string[] {
    return terms.filter((t) => !this.committed.has(t));
  }

  /** What is kept of a committed term. */
  get(term: string): V | undefined {
    return this.committed.get(term);
  }

  /** A statement of `transaction` numbered `terms` (the ones it added, not those it found). */
  numbered(transaction: unknown, terms: Iterable<string>): void {
    if (transaction !== this.transaction || transaction === undefined) {
      this.transaction = transaction;
      this.added.clear();
    }
    for (const term of terms) this.added.add(term);
  }

  /** `term` is in reading_terms as seen by the transaction of the last `numbered`: committed unless that transaction numbered it. */
  found(term: string, value: V): void {
    if (this.transaction !== undefined && !this.added.has(term)) this.committed.set(term, value);
  }
}

/** What a dialect's statements tell of a transaction's numbering: the terms they added, and every number they found. */
export interface TermsNumbered {
  /** The transaction they ran in (undefined: not known, so that nothing found is kept as committed). */
  transaction: unknown;
  added: Iterable<string>;
  numbers: Iterable<readonly [term: string, id: number]>;
}

/**
 * The numbers of the readings' names and types, numbering those new in this
 * transaction: `number` runs the dialect's statements, only for terms the
 * connection has not seen committed. A term left without a number gives
 * undefined, which no reading's column accepts: a reading is never dropped
 * quietly.
 */
export async function termNumbers(
  known: ConnectionTerms<number>,
  readings: ReadonlyArray<{ name: string; type: string }>,
  number: (terms: string[]) => Promise<TermsNumbered>,
): Promise<(term: string) => number | undefined> {
  const wanted = known.unknown(termsOf(readings));
  if (wanted.length === 0) return (term) => known.get(term);
  const { transaction, added, numbers } = await number(wanted);
  known.numbered(transaction, added);
  const local = new Map<string, number>();
  for (const [term, id] of numbers) {
    local.set(term, id);
    known.found(term, id);
  }
  return (term) => known.get(term) ?? local.get(term);
}

/** The record `known` keeps of connection `conn`, made on its first use. */
export function connectionTerms<V>(known: WeakMap<object, ConnectionTerms<V>>, conn: object): ConnectionTerms<V> {
  let terms = known.get(conn);
  if (!terms) known.set(conn, terms = new ConnectionTerms<V>());
  return terms;
}

/** What no term is numbered: a reading filtered by an unknown name matches nothing. */
export const NO_TERM = -1;

/**
 * The numbers readings give their attribute names and types (migration
 * 1700-readings-compact), as the read connection finds them. A reader sees
 * only committed terms and no term is ever deleted or renumbered, so what is
 * found once is kept for the store's life; the writers number new terms in
 * their own transactions.
 */
export class ReadingTerms {
  private readonly ids = new Map<string, number>();
  private readonly terms = new Map<number, string>();

  constructor(private readonly read: Kysely<Database>) {}

  /** The number of `term`, or NO_TERM when no reading has it. */
  async idOf(term: string): Promise<number> {
    return (await this.idsOf([term]))[0] as number;
  }

  /** The numbers of `terms`, in their order (NO_TERM for those no reading has). */
  async idsOf(terms: readonly string[]): Promise<number[]> {
    const missing = terms.filter((t) => !this.ids.has(t));
    if (missing.length > 0) {
      const rows = await this.read.selectFrom('reading_terms').select(['id', 'term']).where('term', 'in', [...new Set(missing)]).execute();
      for (const row of rows) this.keep(Number(row.id), row.term);
    }
    return terms.map((t) => this.ids.get(t) ?? NO_TERM);
  }

  /** The term of each number of `ids`, read once for those not known yet. */
  async namer(ids: Iterable<number>): Promise<(id: number) => string> {
    const missing = new Set<number>();
    for (const id of ids) if (!this.terms.has(id)) missing.add(id);
    if (missing.size > 0) {
      const rows = await this.read.selectFrom('reading_terms').select(['id', 'term']).where('id', 'in', [...missing]).execute();
      for (const row of rows) this.keep(Number(row.id), row.term);
    }
    return (id) => this.terms.get(id) ?? '';
  }

  private keep(id: number, term: string): void {
    this.ids.set(term, id);
    this.terms.set(id, term);
  }
}
