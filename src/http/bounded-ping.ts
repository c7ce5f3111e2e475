/**
 * Asks whether the store answers, and says no when it has not answered within `withinMs`:
 * readiness probes must get their answer in time whatever the store does (a hung database
 * answers nothing at all). Probes that come while one ask is under way share it, so that a
 * hung store does not collect one waiting connection per probe.
 */
export function boundedPing(ping: () => Promise<boolean>, withinMs: number): () => Promise<boolean> {
  let asking: Promise<boolean> | undefined;
  return () => {
    asking ??= ping().catch(() => false).finally(() => {
      asking = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), withinMs);
    });
    return Promise.race([asking, late]).finally(() => clearTimeout(timer));
  };
}

/** /ready answers within a second whatever the store does. */
export const READY_WITHIN_MS = 900;
