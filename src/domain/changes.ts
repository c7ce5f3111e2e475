import type { NgsiAttributes } from './asset-body.js';
import type { AssetChange, AssetDeletion, NewAsset } from './asset-writes.js';

/**
 * The change log's entries: every committed write of an asset, in commit
 * order. Subscriptions, live streams and the caches of other processes read
 * it; it never holds a write that did not commit, nor misses one that did.
 */
export type ChangeKind = 'create' | 'update' | 'delete';

/** What one asset write records, in the same transaction as the write. */
export interface ChangeRecord {
  assetId: string;
  assetType: string;
  site: string;
  kind: ChangeKind;
  /** The attributes the write set, with their new values; none for a delete. */
  attributes: NgsiAttributes;
  /** The platform's time of the write (its clock), epoch ms. */
  at: number;
}

/** A committed change, as readers get it: `seq` grows with commit order and never goes back. */
export interface Change extends ChangeRecord {
  seq: number;
}

/** Changes a reader gets in one page at most. */
export const MAX_CHANGES_PAGE = 1000;

/** The page size a reader asked for, within 1..MAX_CHANGES_PAGE. */
export function changesPageSize(asked: number | undefined): number {
  if (asked === undefined || !Number.isFinite(asked)) return MAX_CHANGES_PAGE;
  return Math.min(MAX_CHANGES_PAGE, Math.max(1, Math.floor(asked)));
}

/** Where a batch's writes put their changes (the change log appends them at its commit). */
export interface ChangeSink {
  add(record: ChangeRecord): void;
}

/** The change a create records: every attribute the asset was created with. */
export function createdChange(asset: NewAsset): ChangeRecord {
  return { assetId: asset.id, assetType: asset.type, site: asset.urn.site, kind: 'create', attributes: asset.attributes, at: asset.receivedAt };
}

/** The change an update records: the attributes it set, with their new values. */
export function updatedChange(update: AssetChange, asset: { type: string; site: string }): ChangeRecord {
  return { assetId: update.id, assetType: asset.type, site: asset.site, kind: 'update', attributes: update.changes, at: update.receivedAt };
}

/** The change a delete records: the asset as it was known, no attributes. */
export function deletedChange(deletion: AssetDeletion, asset: { type: string; site: string }): ChangeRecord {
  return { assetId: deletion.id, assetType: asset.type, site: asset.site, kind: 'delete', attributes: {}, at: deletion.now };
}
