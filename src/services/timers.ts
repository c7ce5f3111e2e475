/**
 * Timers a background service waits on: the system's by default, a
 * controllable one in tests (so that a retry after ten minutes takes none).
 */
export interface Timers {
  setTimeout(fire: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: Timers = {
  setTimeout: (fire, ms) => setTimeout(fire, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
