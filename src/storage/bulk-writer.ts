import type { AssetUrn } from '../domain/urn.js';

/** What a dialect's bulk writer (./sqlite/bulk-writer.ts, ./postgres/bulk-writer.ts) takes: a generated data set in big batches. */

/** An asset's final state, as the write path would have left it after its last update. */
export interface BulkAsset extends AssetUrn {
  /** Assigned by the caller, from `firstSeq` on, in creation order. */
  seq: number;
  id: string;
  type: string;
  /** JSON text of the NGSI v2 normalized attributes (TimeInstant included). */
  attrs: string;
  latitude: number;
  longitude: number;
  /** TimeInstant of the last update, epoch ms. */
  recordedAt: number;
  /** Receive time of the last update, epoch ms. */
  lastReadingAt: number;
  /** Receive time of the create, epoch ms. */
  createdAt: number;
  /** Every attribute the asset ever carried, with its type: [name, type]. */
  attributeTypes: Array<[string, string]>;
}

/** One reading, as the write path appends one per attribute of a request. */
export interface BulkReading {
  assetSeq: number;
  name: string;
  type: string;
  /** The value as the write path stores it (strings as they are, JSON otherwise). */
  value: string;
  recvTime: number;
  /** The TimeInstant it was sent with, epoch ms. */
  observedTime: number;
}

/** What a dialect's bulk writer does; each call is one transaction. */
export interface BulkWriter {
  /** The seq the first new asset must take (one more than any existing). */
  readonly firstSeq: number;
  addAssets(rows: BulkAsset[]): Promise<void>;
  addReadings(rows: BulkReading[]): Promise<void>;
  /** Indexes the positions of the new assets and leaves the database ready to serve. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

