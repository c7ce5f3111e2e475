import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/** An axis-aligned box in degrees; the R*Tree / GiST prefilter of every geo query. */
export interface GeoBox {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/**
 * What differs between the two stores, in one place. Everything else is
 * plain Kysely that both dialects run unchanged.
 */
export interface DialectAdapter {
  readonly name: 'sqlite' | 'postgres';
  /** Starts the write transaction of a batch (SQLite takes the write lock at once). */
  readonly beginSql: string;
  /** Keeps the geo indexes in step with a live asset's position (`city`: not an experimenters' asset). */
  indexPosition(db: Executor, seq: number, lon: number, lat: number, city: boolean): Promise<void>;
  /** Takes a deleted asset out of the index of live city positions. */
  unindexPosition(db: Executor, seq: number): Promise<void>;
  /** Asset seqs whose position lies inside the box (index-only prefilter). */
  seqsInBox(db: Executor, box: GeoBox): Promise<number[]>;
  /** Error raised by a unique-key violation? */
  isUniqueViolation(error: unknown): boolean;
  /** Error meaning the store itself is unreachable (not the request's fault)? */
  isUnavailable(error: unknown): boolean;
}
