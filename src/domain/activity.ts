/**
 * Online/offline counts without scanning assets: every asset sits in the hourly
 * bucket of its last reading (table asset_activity). An asset is online when
 * its last reading is younger than ONLINE_WINDOW, so the online count is the
 * sum of the buckets from `onlineSince(now, window)` on (hour granularity).
 */
export const ACTIVITY_BUCKET_MS = 3_600_000;

export function activityHour(epochMs: number): number {
  return Math.floor(epochMs / ACTIVITY_BUCKET_MS) * ACTIVITY_BUCKET_MS;
}

/** The first bucket counted as online at `now`. */
export function onlineSince(now: number, onlineWindowMs: number): number {
  return activityHour(now - onlineWindowMs);
}

/** Counter tables key missing segments (no service, no provider) as ''. */
export const counterSegment = (segment: string | null): string => segment ?? '';
