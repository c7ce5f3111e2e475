import type { Clock } from '../domain/clock.js';
import type { ChangeLog } from '../storage/change-log.js';

/** How often the change log is pruned of what is older than CHANGE_RETENTION. */
const PRUNE_EVERY_MS = 60_000;

export interface ChangePruning {
  /** Stops the timer, once a pruning under way has ended. */
  stop(): Promise<void>;
}

/**
 * Prunes the change log in the background, once a minute, of the changes
 * older than the retention. Each pruning deletes in short writes of their own,
 * between the others, so that writes never wait long behind it. The changes
 * after `keepAfter` (what a live subscription has not yet delivered) are kept
 * whatever their age. Several processes on one store may all prune: deleting
 * what is gone deletes nothing.
 */
export function startChangePruning(changes: ChangeLog, clock: Clock, retentionMs: number, onError: (error: unknown) => void, keepAfter: () => Promise<number | undefined> = async () => undefined): ChangePruning {
  let running: Promise<number> | undefined;
  const runOnce = () => {
    running ??= keepAfter().then((seq) => changes.prune(clock.now() - retentionMs, seq)).finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => void runOnce().catch(onError), PRUNE_EVERY_MS).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
