/** Server defaults for perimeters that set no limits; generous, so they stop runaway loops rather than real work. */
export const DEFAULT_LIMITS = { calls_per_minute: 6_000, commits_per_hour: 1_000, files_per_commit: 100, max_file_bytes: 5 * 1024 * 1024 } as const;

/** Fixed-window counters per key. The clock is passed in, so the limiter is testable without waiting. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * Counts one event against `limit` per `windowMs` for `key`. Returns undefined when it fits, or the seconds to
   * wait when the window is full (the event is then not counted).
   */
  take(key: string, limit: number, windowMs: number): number | undefined {
    const t = this.now();
    let w = this.windows.get(key);
    if (!w || t - w.start >= windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(key, w);
    }
    if (w.count >= limit) return Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    w.count += 1;
    return undefined;
  }
}
