import { CompiledQuery, type Compilable, type DatabaseConnection, type QueryResult, type RawBuilder } from 'kysely';
import type { Dialect, Executor } from './ports.js';

/**
 * A run of several prepared queries on the one connection of a transaction:
 * taking the connection once instead of for every query saves a few
 * microseconds a statement on the write path. No other query may run on the
 * transaction (through its Kysely handle) until the session ends.
 */
export interface Session {
  db: Executor;
  conn: DatabaseConnection;
  dialect: Dialect;
  /**
   * The write transaction the statements run in, where there is one: the same
   * object for every segment of a batch (../write-batch.ts), a new one for
   * the next batch. What a dialect learns inside a transaction that may still
   * roll back is kept apart by it.
   */
  transaction?: object;
}

export function inSession<T>(db: Executor, dialect: Dialect, work: (session: Session) => Promise<T>, transaction?: object): Promise<T> {
  return db.getExecutor().provideConnection((conn) => work({ db, conn, dialect, transaction }));
}

/** Stands for the i-th parameter while the query is built. */
const MARKER_HEAD = '\u0000opencity-parameter-';
const marker = (i: number): string => `${MARKER_HEAD}${i}\u0000`;
/** The parameter a compiled value stands for, or undefined for a constant of the build (read in one step: a multi-row statement has thousands). */
function markerIndex(value: unknown, arity: number): number | undefined {
  if (typeof value !== 'string' || !value.startsWith(MARKER_HEAD)) return undefined;
  const index = Number(value.slice(MARKER_HEAD.length, -1));
  return Number.isInteger(index) && index >= 0 && index < arity && value === marker(index) ? index : undefined;
}

/**
 * The row counts of multi-row statements, largest first: a batch of any size
 * runs as statements of these few sizes, so that each such statement has a
 * handful of shapes to compile and keep prepared, not one per row count.
 */
const ROW_RUNS = [64, 16, 4, 1] as const;

/** `items` cut into runs of the sizes of ROW_RUNS (at most `largest` each), in order. */
export function rowRuns<T>(items: readonly T[], largest: number = ROW_RUNS[0]): T[][] {
  const runs: T[][] = [];
  let at = 0;
  for (const size of ROW_RUNS) {
    if (size > largest) continue;
    while (items.length - at >= size) {
      runs.push(items.slice(at, at + size));
      at += size;
    }
  }
  return runs;
}

/**
 * What `rowsOf` gives for each item, one after another: the parameters of a
 * multi-row statement, or the rows a batch writes. Array.prototype.flatMap
 * does the same, but V8 runs it element by element through its generic path,
 * many times slower than this loop, and the write path calls it for every row.
 */
export function concatRows<T, U>(items: readonly T[], rowsOf: (item: T, index: number) => readonly U[]): U[] {
  const out: U[] = [];
  for (let i = 0; i < items.length; i++) {
    const rows = rowsOf(items[i] as T, i);
    for (let k = 0; k < rows.length; k++) out.push(rows[k] as U);
  }
  return out;
}

interface Template {
  base: CompiledQuery;
  /** For each compiled parameter: the index of the run-time parameter, or a constant of the build. */
  slots: Array<{ param: number } | { constant: unknown }>;
}

/**
 * A query written once with Kysely's builder and compiled once per dialect
 * (and variant, e.g. a number of rows), then run many times with new
 * parameter values. On the write path, building and compiling the query
 * cost more than running it. The builder receives markers in place of the
 * values; wherever a marker lands among the compiled parameters, the run-time
 * value takes its place, so a value used twice is bound twice.
 */
export class PreparedQuery<Params extends readonly unknown[], Row> {
  private readonly templates = new Map<string, Template>();

  constructor(
    /** How many parameters a run takes (per variant). */
    private readonly arity: number | ((variant: number) => number),
    /** A builder query, or raw SQL (compiled against `db`). */
    private readonly build: (db: Executor, p: { [K in keyof Params]: any }, dialect: Dialect, variant: number) => Compilable<Row> | RawBuilder<Row>,
  ) {}

  private template(db: Executor, dialect: Dialect, variant: number): Template {
    const key = `${dialect.name}:${variant}`;
    let template = this.templates.get(key);
    if (!template) {
      const arity = typeof this.arity === 'number' ? this.arity : this.arity(variant);
      const markers = Array.from({ length: arity }, (_, i) => marker(i));
      const built = this.build(db, markers as { [K in keyof Params]: any }, dialect, variant);
      const base = 'isRawBuilder' in built ? built.compile(db) : built.compile();
      const slots = base.parameters.map((value) => {
        const index = markerIndex(value, arity);
        return index !== undefined ? { param: index } : { constant: value };
      });
      template = { base, slots };
      this.templates.set(key, template);
    }
    return template;
  }

  async run(session: Session, params: Params, variant = 0): Promise<QueryResult<Row>> {
    const { base, slots } = this.template(session.db, session.dialect, variant);
    const parameters = slots.map((slot) => ('param' in slot ? params[slot.param] : slot.constant));
    return session.conn.executeQuery<Row>({ ...base, parameters } as CompiledQuery<Row>);
  }

  /**
   * A multi-row statement, whose variant is its number of rows: the rows'
   * parameters, `rowOf` each, one after another, so the count cannot differ
   * from the parameters given.
   */
  runRows<T>(this: PreparedQuery<unknown[], Row>, session: Session, rows: readonly T[], rowOf: (row: T) => readonly unknown[]): Promise<QueryResult<Row>> {
    return this.run(session, concatRows(rows, rowOf), rows.length);
  }
}

/**
 * A statement of one dialect whose text never changes with the number of rows
 * (PostgreSQL takes whole arrays as parameters and unnests them): it is
 * written as SQL text once, and runs a batch of any size in one round trip
 * where a builder query would need one shape, and one compilation, per size.
 */
export class RawStatement<Row> {
  constructor(private readonly text: string) {}

  run(session: Session, parameters: readonly unknown[]): Promise<QueryResult<Row>> {
    return session.conn.executeQuery<Row>(CompiledQuery.raw(this.text, [...parameters]) as CompiledQuery<Row>);
  }
}

/** Ends the transaction a session runs in. */
export const COMMIT = new RawStatement<never>('commit');
