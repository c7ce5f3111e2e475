import type { Kysely, Transaction } from 'kysely';
import type { ChangeRecord } from '../../domain/changes.js';
import type { Session } from '../prepared-query.js';
import type { Database } from '../schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

/** An axis-aligned box in degrees; the R*Tree / GiST prefilter of every geo query. */
export interface GeoBox {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/** A live asset's position, as the geo indexes keep it. */
export interface IndexedPosition {
  seq: number;
  longitude: number;
  latitude: number;
  /** A city asset (not of the experimenters' site). */
  city: boolean;
}

/**
 * What differs between the two stores, in one place. Everything else is
 * plain Kysely that both dialects run unchanged.
 */
export interface DialectAdapter {
  readonly name: 'sqlite' | 'postgres';
  /** Starts the write transaction of a batch (SQLite takes the write lock at once). */
  readonly beginSql: string;
  /** Keeps the geo indexes in step with the positions of live assets (created or moved), where they are not on the row itself. */
  indexPositions(db: Executor, positions: readonly IndexedPosition[]): Promise<void>;
  /** Takes a deleted asset out of the indexes of live positions. */
  unindexPosition(db: Executor, seq: number): Promise<void>;
  /** Asset seqs whose position lies inside the box (index-only prefilter). */
  seqsInBox(db: Executor, box: GeoBox): Promise<number[]>;
  /** Appends a transaction's changes to the change log, in order, in one statement; the seq of the last one. */
  appendChanges(session: Session, changes: readonly ChangeRecord[]): Promise<number>;
  /** Error raised by a unique-key violation? */
  isUniqueViolation(error: unknown): boolean;
  /** Error meaning the store itself is unreachable (not the request's fault)? */
  isUnavailable(error: unknown): boolean;
}
