import type { AliasedRawBuilder, Expression, Kysely, RawBuilder, SelectQueryBuilder, SqlBool, Transaction } from 'kysely';
import type { AssetChange, AssetDeletion, CreateInput, CreateOutcome, UpdateOutcome } from '../domain/asset-writes.js';
import type { ChangeRecord, ChangeSink } from '../domain/changes.js';
import type { StoreErrorKind } from '../domain/errors.js';
import type { Circle } from '../domain/geo.js';
import type { MigrationStep } from './migrations/index.js';
import type { Database } from './schema.js';
import type { Session } from './prepared-query.js';
import type { SummaryRow } from './shared/asset-rows.js';
import type { StoredReading } from './shared/stored-readings.js';

/**
 * What each store (./sqlite/, ./postgres/) provides, one interface per
 * capability. Code outside those two folders asks the store's dialect through
 * these, and never which database runs.
 */

export type Executor = Kysely<Database> | Transaction<Database>;

/** An axis-aligned box in degrees; the R*Tree / GiST prefilter of every geo query. */
export interface GeoBox {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/** The read connection and dialect of a store (what shared read code needs of it). */
export interface StoreReader {
  readonly read: Kysely<Database>;
  readonly dialect: Dialect;
}

/**
 * Asset writes, each a batch run inside the transaction the write pipeline
 * gives it; every refused item (exists, quota, not found) has written nothing.
 * Each committed write adds its change to `changes`, in order.
 */
export interface AssetWrites {
  create(session: Session, inputs: readonly CreateInput[], changes: ChangeSink): Promise<CreateOutcome[]>;
  /** Per update, its outcome (only an 'updated' one wrote anything; src/domain/update-plan.ts). */
  update(session: Session, inputs: readonly AssetChange[], changes: ChangeSink): Promise<UpdateOutcome[]>;
  /** Per delete: was the asset found (and taken out of discovery)? */
  delete(session: Session, inputs: readonly AssetDeletion[], changes: ChangeSink): Promise<boolean[]>;
}

/** The end of a write transaction: its changes appended (the seq of the last one, undefined for none), then its commit. */
export interface TransactionEnd {
  appended: Promise<number | undefined>;
  /** The commit's answer. After a failed append nothing was committed, whatever the commit answered. */
  committed: Promise<unknown>;
}

/** The change log's writes (../change-log.ts has its reads). */
export interface ChangeWrites {
  /**
   * Appends a transaction's changes, in order, and commits the transaction,
   * in as few round trips as the store allows. Both outcomes are to be awaited.
   */
  appendAndCommit(session: Session, changes: readonly ChangeRecord[]): TransactionEnd;
}

/** A page of the assets in a circle in the order of the index of live city positions, and how many of the first `reach` there are. */
export interface CityPage {
  walked: number;
  rows: SummaryRow[];
}

/** The SQL of discovery that differs between the stores, each a condition on the `assets` table. */
export interface AssetQueries {
  /** The asset's indexed position may lie in the box (an index prefilter: a few outside may pass, none inside is left out). */
  positionMayBeIn(box: GeoBox): RawBuilder<SqlBool>;
  /** A table `r(id)` of asset seqs to read in the spatial index's order, where the store streams it (else undefined). */
  spatialSource(box: GeoBox): AliasedRawBuilder<{ id: number }, 'r'> | undefined;
  /** `assets.<column>` as a filter term; `useIndex` false keeps the store from answering it through that column's index. */
  filterColumn(column: string, useIndex: boolean): RawBuilder<unknown>;
  /** `assets.id` starts with `prefix` (case-sensitive). */
  idStartsWith(prefix: string): RawBuilder<SqlBool>;
  /** One of the asset's attribute names or metadata values, lower-cased, contains `term` (lower case). */
  attributeTextContains(term: string): RawBuilder<SqlBool>;
  /** Values as `listed` takes them in one parameter. */
  listParameter<T extends number | string>(values: readonly T[]): string | T[];
  /** Assets whose `column` is in `list` (a listParameter value, or the marker of a prepared query), any order. */
  listed(column: 'seq' | 'id', list: unknown): RawBuilder<SqlBool>;
  /**
   * Assets among those `seqs` selects (ordered, one column: seq) after skipping `offset`, at most
   * `limit` of them: the rows of a page whose seqs an index answers alone. `limit` and `offset` may
   * be the markers of a prepared query.
   */
  seqPage(seqs: SelectQueryBuilder<Database, 'assets', { seq: number }>, limit: unknown, offset: unknown): RawBuilder<SqlBool>;
  /** Places from+1..to of the first `reach` live city assets in the (indexable) circle, in the index's order. */
  cityPage(store: StoreReader, circle: Circle, reach: number, from: number, to: number): Promise<CityPage>;
  /** Asset seqs whose position lies inside the box (index only). */
  seqsInBox(db: Executor, box: GeoBox): Promise<number[]>;
}

/** The SQL of history (readings) that differs between the stores. */
export interface ReadingQueries {
  /** A reading's text value as a number, or NULL when it is not one (grammar: isNumericValue of src/domain/aggregation.ts). */
  numericValue(): RawBuilder<number | null>;
  /** Must each per-attribute walk of a merged page stop at the page's end by itself (else the store reads and sorts it whole)? */
  readonly walksStopAtPage: boolean;
  /**
   * A reading's value and its observation time less its receive time, as the store keeps them: the
   * cheapest to read many of. The value may be NULL where it is the ISO 8601 text of the observation
   * time (read back by ./shared/stored-readings.ts).
   */
  readonly stored: { value: RawBuilder<string | null>; observedOffset: RawBuilder<number> };
  /**
   * The rows of `page` (stored readings: recvTime, seq, attrName, attrType, attrValue, observedTime) in
   * one text, as ./shared/stored-readings.ts reads it back: for a store whose driver costs more per row
   * than the store spends writing them so (omitted where rows come cheaper).
   */
  packed?(page: Expression<unknown>): RawBuilder<{ packed: string | null }>;
  /**
   * The stored readings a walk reads, as rows of `readings` (every column) with the walk's asset,
   * attribute and range applied; the caller adds its own order, key and limit. A store that keeps
   * some readings elsewhere (PostgreSQL's blocks) reads them here too, and may use the walk's
   * `after`, `direction` and `reach` to read less.
   */
  series(db: Executor, walk: SeriesWalk): SelectQueryBuilder<Database, 'readings', object>;
  /** Every stored reading, as a table (asset_seq, name_id, recv_time, seq, attr_value) to read whole (rebuilding rollups). */
  readonly every: RawBuilder<unknown>;
  /** Readings a page of an export holds, where the store reads a page at a cost of its own beside its readings' (default 4,096). */
  readonly exportPage?: number;
  /**
   * An export's readings in receive order, pages of about `batch`, where the store reads them faster than
   * merged walks do (omitted where it does not): the values as stored, observation times as offsets.
   */
  exportReadings?(db: Executor, walk: ExportWalk, batch: number): AsyncGenerator<StoredReading[]>;
  /** Where the store packs the readings of ended days (omitted where it keeps every reading as a row). */
  readonly blocks?: ReadingBlocks;
}

/** The readings an export reads (ReadingQueries.exportReadings): an asset's, of some attributes, received in a range. */
export interface ExportWalk {
  assetSeq: number;
  nameIds: readonly number[];
  range: { from: number; to: number } | undefined;
}

/** Which stored readings a walk reads (ReadingQueries.series). */
export interface SeriesWalk {
  assetSeq: number;
  /** One attribute (its number in reading_terms), or every one. */
  nameId: number | undefined;
  /** Receive times, both ends included. */
  range: { from: number; to: number } | undefined;
  /** The walk goes on past this reading (receive time, seq) in `direction`. */
  after?: { time: number; seq: number } | undefined;
  direction?: 'asc' | 'desc';
  /** Only the first `reach` readings in `direction` are wanted... */
  reach?: number | undefined;
  /** ...of those of these attributes together, when the walk is one of several merged (default: its own). */
  reachOver?: readonly number[] | undefined;
}

/**
 * The packing of readings into blocks, a series (asset and attribute) at a
 * time, each call a short write inside the transaction it is given.
 */
export interface ReadingBlocks {
  /**
   * Packs the oldest of the series' readings received before `before` (and within moments of their
   * observation) into blocks, whole days of them up to about `limit` (a day of more: `limit` of
   * it); how many it packed (0: none is left).
   */
  pack(db: Executor, assetSeq: number, nameId: number, before: number, limit: number): Promise<number>;
  /**
   * Drops the series' packed readings received before `before`: at most `maxBlocks` whole blocks,
   * then, once none is left, the part of the block that straddles `before`. The readings it dropped,
   * and whether blocks before `before` may be left.
   */
  drop(db: Executor, assetSeq: number, nameId: number, before: number, maxBlocks: number): Promise<{ readings: number; more: boolean }>;
}


/** A store's dialect: its capabilities, and what it knows of its own SQL and errors. */
export interface Dialect {
  /** Names the dialect in messages and logs, and keys the statements compiled for it. */
  readonly name: 'sqlite' | 'postgres';
  /** The step of each migration this store runs. */
  readonly migrationStep: MigrationStep;
  /**
   * Starts the write transaction of a batch; where the store can tell afterwards whether a
   * transaction committed, it also answers the transaction's id (a row with `txid`).
   */
  readonly beginSql: string;
  /**
   * Whether the transaction `txid` committed, asked on another connection after its commit got
   * no answer (omitted where a commit always answers: SQLite, in process).
   */
  transactionFate?(read: Kysely<Database>, txid: string): Promise<'committed' | 'aborted' | 'unknown'>;
  readonly assetWrites: AssetWrites;
  readonly changes: ChangeWrites;
  readonly assetQueries: AssetQueries;
  readonly readings: ReadingQueries;
  readonly entityQueries: EntityQueries;
  /** A value that changes with every commit to the store, or undefined when the store cannot tell cheaply. */
  commitMarker(read: Kysely<Database>, write: Kysely<Database>): Promise<string | undefined>;
  /** Error raised by a unique-key violation? */
  isUniqueViolation(error: unknown): boolean;
  classifyError(error: unknown): StoreErrorKind | undefined;
}

/** A site's live asset as NGSI v2 reads list it. */
export interface EntityRow {
  seq: number;
  id: string;
  type: string;
  /** JSON text of the normalized attributes. */
  attrs: string;
  createdAt: number;
  modifiedAt: number;
}

/** Which of a site's live assets a read takes: any one of `lists` (each its ids and types; none means all), inside `box` when given. */
export interface EntityRowFilter {
  site: string;
  lists: ReadonlyArray<{ ids?: readonly string[] | undefined; types?: readonly string[] | undefined }>;
  box?: GeoBox | undefined;
}

/** An order the store gives by itself; creation order (seq) breaks every tie. */
export type EntityRowOrder = ReadonlyArray<{ column: 'id' | 'type' | 'created' | 'modified'; descending: boolean }>;

/** The SQL of NGSI v2 reads (GET /v2/entities, /v2/types, POST /v2/op/query). */
export interface EntityQueries {
  /** Places offset+1..offset+limit of the matching rows in `order`. */
  page(store: StoreReader, filter: EntityRowFilter, order: EntityRowOrder, limit: number, offset: number): Promise<EntityRow[]>;
  /** How many rows match. */
  count(store: StoreReader, filter: EntityRowFilter): Promise<number>;
  /** At most `chunk` matching rows with a seq above `afterSeq`, in creation order: the bounded scan of conditions SQL does not evaluate. */
  scan(store: StoreReader, filter: EntityRowFilter, afterSeq: number, chunk: number): Promise<EntityRow[]>;
  /** The site's entity types with their live counts, by type name; only `types` when given. */
  typeCounts(store: StoreReader, site: string, types?: readonly string[]): Promise<Array<{ type: string; count: number }>>;
  /** The attribute names the site's live assets of `types` have, with their attribute types unless `withTypes` is false (then attrType is ''). */
  typeAttributes(store: StoreReader, site: string, types: readonly string[], withTypes: boolean): Promise<Array<{ type: string; name: string; attrType: string }>>;
}
