import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/** Uses of a statement's text before it is prepared, and texts prepared at most (per process). */
const HOT_AFTER = 3;
const MAX_PREPARED = 256;
/** Texts counted while not yet hot, at most. */
const MAX_COUNTED = 10_000;

/**
 * The pool Kysely queries PostgreSQL through, preparing the statements that
 * run again and again: pg sends an unnamed statement to be parsed and planned
 * on every run, which for the one-row lookups of most requests costs the
 * server more than running them. A statement with parameters that has run a
 * few times gets a name derived from its text, and each connection parses it
 * once. Statements without parameters (BEGIN, COMMIT, migrations, which may
 * hold several commands) are left as they are, and the number of prepared
 * texts is bounded, since each costs memory on every connection.
 */
export class PreparingPool implements PostgresPool {
  private readonly uses = new Map<string, number>();
  private readonly names = new Map<string, string>();

  /** `readTimeoutMs`: how long a statement waits for its answer before its connection is given up (./open.ts). */
  constructor(private readonly pool: pg.Pool, private readonly readTimeoutMs?: number) {}

  /**
   * One client of Kysely's per connection of the pool, kept as long as the
   * connection: Kysely, and what is known per connection (the reading terms it
   * has seen committed, ./reading-terms.ts), recognise it each time it is taken.
   */
  private readonly clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.pool.connect();
    let wrapped = this.clients.get(client);
    if (!wrapped) this.clients.set(client, wrapped = this.wrap(client));
    return wrapped;
  }

  private wrap(client: pg.PoolClient): PostgresPoolClient {
    // Set when a statement got no answer in time: the connection's state is unknown (its answer
    // may still come), so it takes no further statement and the pool discards it.
    let lost: Error | undefined;
    const query = (statement: unknown, parameters?: ReadonlyArray<unknown>) => {
      if (lost) return Promise.reject(lost);
      if (typeof statement !== 'string') return client.query(statement as pg.Submittable);
      return this.run(client, this.config(statement, parameters ?? []), (error) => (lost = error));
    };
    return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release(lost) };
  }

  /**
   * A statement through the driver's callback, bounded by our own timer. The
   * driver's promise and its own bound (query_timeout) keep each answer
   * reachable from objects that outlive it; when those have reached V8's old
   * generation, every answer after them is kept through young collections
   * until a full one, so that an export's whole history passed through the
   * old generation (bench/RESULTS.md, history design rows).
   */
  private run(client: pg.PoolClient, config: pg.QueryConfig, lose: (error: Error) => void): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      const timeoutMs = this.readTimeoutMs;
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => {
        // No answer in time: the connection's state is unknown, and an answer that comes later goes nowhere.
        const error = new Error(READ_TIMEOUT);
        lose(error);
        reject(error);
      }, timeoutMs);
      client.query(config, (error: Error | undefined, result: pg.QueryResult | pg.QueryResult[]) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(lastResult(result));
      });
    });
  }

  end(): Promise<void> {
    return this.pool.end();
  }

  private config(text: string, parameters: ReadonlyArray<unknown>): pg.QueryConfig {
    const values = parameters.map((value) => (Array.isArray(value) ? arrayLiteral(value) ?? value : value));
    const name = values.length > 0 ? this.nameOf(text) : undefined;
    return name === undefined ? { text, values } : { name, text, values };
  }

  private nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= MAX_PREPARED) return known;
    const uses = (this.uses.get(text) ?? 0) + 1;
    if (uses < HOT_AFTER) {
      if (this.uses.size >= MAX_COUNTED) this.uses.clear();
      this.uses.set(text, uses);
      return undefined;
    }
    this.uses.delete(text);
    const name = `oc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, name);
    return name;
  }
}

const NEEDS_ESCAPE = /[\\"]/;
/** Characters JSON.stringify would escape in its own way (`\n`, `\ud800`), which an array literal reads otherwise. */
// eslint-disable-next-line no-control-regex
const JSON_ESCAPED = /[\u0000-\u001f\ud800-\udfff]/;

/** The values other than texts and nulls that an array literal holds as they print. */
const isScalar = (value: unknown): value is number | bigint | boolean =>
  typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean';

/**
 * A one-dimensional array of texts, numbers, booleans and nulls as the
 * array literal pg would send for it, made without pg's two escapes of every
 * text (a batch's statement carries thousands of them, and few texts hold a
 * quote or a backslash); undefined for any other array, which pg sends itself.
 * An array of plain texts, or of numbers and booleans alone (most of a batch's
 * columns), is joined in one piece: each element added to a growing text
 * would leave a string behind it for the collector.
 */
function arrayLiteral(values: readonly unknown[]): string | undefined {
  if (values.length === 0) return '{}';
  let texts = true;
  let scalars = true;
  for (let i = 0; i < values.length && (texts || scalars); i++) {
    const value = values[i];
    if (typeof value === 'string') {
      scalars = false;
      if (NEEDS_ESCAPE.test(value)) texts = false;
    } else {
      texts = false;
      if (!isScalar(value)) scalars = false;
    }
  }
  if (texts) return `{"${values.join('","')}"}`;
  if (scalars) return `{${values.join(',')}}`;
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) elements[i] = 'NULL';
    else if (typeof value === 'string') elements[i] = NEEDS_ESCAPE.test(value) ? quoted(value) : `"${value}"`;
    else if (isScalar(value)) elements[i] = String(value);
    else return undefined;
  }
  return `{${elements.join(',')}}`;
}

/**
 * A text holding quotes or backslashes as an element of an array literal: each
 * escaped with a backslash. JSON.stringify quotes exactly so, natively and
 * several times faster than a replace (the texts that hold quotes are mostly
 * JSON, an asset's attributes), unless the text holds a control character or a
 * surrogate, which it would escape as JSON does.
 */
const quoted = (value: string): string => (JSON_ESCAPED.test(value) ? `"${value.replace(/[\\"]/g, '\\$&')}"` : JSON.stringify(value));

/** What a statement with no answer in time fails with (in the words the driver used for its own timeout); ./dialect.ts tells it apart. */
export const READ_TIMEOUT = 'Query read timeout';

/** A text of several statements (sent without parameters) answers with its last statement's result. */
const lastResult = (result: pg.QueryResult | pg.QueryResult[]): pg.QueryResult => (Array.isArray(result) ? result[result.length - 1] as pg.QueryResult : result);
