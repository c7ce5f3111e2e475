import { storeUnavailable, type AppError } from '../domain/errors.js';

/**
 * The bound on every call to the store (STORE_TIMEOUT): a hung database (a network black hole, a
 * frozen server, a lock held elsewhere) is answered like an unreachable one, 503 with Retry-After,
 * rather than holding requests for as long as the operating system keeps a dead connection.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;

/** A write that waited its whole bound for its turn: it was never sent, so nothing of it was written. */
export const notSentInTime = (): AppError =>
  storeUnavailable('The store did not take the write in time; nothing was written, retry later');

/**
 * A commit whose answer did not come, and whose fate the store could not be asked afterwards: it
 * may have been applied. Read the data back before writing it again (docs/decisions.md).
 */
export const outcomeUnknown = (): AppError =>
  storeUnavailable('The store did not confirm the write in time: it may have been applied; read it back before writing it again');
