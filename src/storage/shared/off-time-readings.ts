/**
 * Readings by observation time. Most readings are received within moments of
 * the TimeInstant they carry: those are found through the history's own order
 * (receive time), since their observation time is within ON_TIME_MS of it.
 * Only the others, a buffered backlog pushed late or a clock ahead, are
 * entered in the index by observation time (migration
 * 1500-readings-off-time-index), so that a reading on time costs one entry
 * in the store, not two. The index was made with this predicate, word for
 * word: both stores use a partial index only for a query that states it.
 */

/** How far a reading's observation time may be from its receive time, either way, and not be indexed by it. */
export const ON_TIME_MS = 300_000;

/** The partial index's predicate, as the index was made with it: never change it without a migration. */
export const OFF_TIME_READING = `(observed_time < recv_time - ${ON_TIME_MS} or observed_time > recv_time + ${ON_TIME_MS})`;
