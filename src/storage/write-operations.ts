import type { Transaction } from 'kysely';
import type { DialectAdapter } from './dialects/adapter.js';
import { createAssetRecords, deleteAssetRecord, updateAssetRecords, type AssetChange, type CreateInput } from './repositories/assets.js';
import type { PendingChanges } from './pending-changes.js';
import type { Database } from './schema.js';

type Trx = Transaction<Database>;

/**
 * Writes that run as a whole transaction of their own, named so that they can
 * run where the writer's connection is: the federation's asset writes. On a
 * SQLite file store the writer's connection lives in a thread of its own
 * (./dialects/sqlite-writer-thread.ts), and a message between threads costs
 * as much as a statement: such a write goes as one message, runs there, and
 * only its plain result comes back. Arguments cross as JSON (no `undefined`
 * among them: `null` says absent), results as plain data.
 */
export const writeOperations = {
  createAssetRecords: (trx: Trx, adapter: DialectAdapter, changes: PendingChanges, inputs: CreateInput[]) => createAssetRecords(trx, adapter, changes, inputs),
  updateAssetRecords: (trx: Trx, adapter: DialectAdapter, changes: PendingChanges, inputs: AssetChange[]) => updateAssetRecords(trx, adapter, changes, inputs),
  deleteAssetRecord: (trx: Trx, adapter: DialectAdapter, changes: PendingChanges, id: string, expectedType: string | null, now: number) =>
    deleteAssetRecord(trx, adapter, changes, id, expectedType ?? undefined, now),
};

export type WriteOperations = typeof writeOperations;
export type WriteOperation = keyof WriteOperations;
export type OperationArgs<K extends WriteOperation> = Parameters<WriteOperations[K]> extends [Trx, DialectAdapter, PendingChanges, ...infer A] ? A : never;
export type OperationResult<K extends WriteOperation> = Awaited<ReturnType<WriteOperations[K]>>;

/** Runs an operation on this connection, inside the transaction it is in; its changes join `changes`. */
export function runOperation<K extends WriteOperation>(
  trx: Trx, adapter: DialectAdapter, changes: PendingChanges, operation: K, args: OperationArgs<K>,
): Promise<OperationResult<K>> {
  const run = writeOperations[operation] as unknown as (trx: Trx, adapter: DialectAdapter, changes: PendingChanges, ...args: OperationArgs<K>) => Promise<OperationResult<K>>;
  return run(trx, adapter, changes, ...args);
}
