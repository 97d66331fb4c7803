// Fixed-window counting as pure data: the clock is an argument, so the in-process limiter and the file store's
// counters share one rule, and the PostgreSQL adapter's SQL states the same rule (state/postgres/counters.ts).

/** One key's window: when it started and how many events it holds. */
export interface CountWindow {
  readonly start: number;
  readonly count: number;
}

/**
 * Counts one event at time `t` (ms) against `limit` per `windowMs`. Returns the next window and, when the window
 * is full, the seconds to wait (the event is then not counted).
 */
export function takeWindow(
  w: CountWindow | undefined,
  t: number,
  limit: number,
  windowMs: number,
): { next: CountWindow; waitSeconds?: number } {
  const current = !w || t - w.start >= windowMs ? { start: t, count: 0 } : w;
  if (current.count >= limit)
    return { next: current, waitSeconds: Math.max(1, Math.ceil((current.start + windowMs - t) / 1000)) };
  return { next: { start: current.start, count: current.count + 1 } };
}

/** Gives back one event of the window (an event that turned out to cost nothing). */
export function giveWindow(w: CountWindow | undefined): CountWindow | undefined {
  return w && w.count > 0 ? { start: w.start, count: w.count - 1 } : w;
}
