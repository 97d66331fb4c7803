import { DEFAULT_ANSWER_BYTES, giveWindow, takeWindow, type CountWindow } from '../core/index.js';

/** Server defaults for perimeters that set no limits; generous, so they stop runaway loops rather than real work. */
export const DEFAULT_LIMITS = {
  calls_per_minute: 6_000,
  commits_per_hour: 1_000,
  files_per_commit: 100,
  max_file_bytes: 5 * 1024 * 1024,
  max_answer_bytes: DEFAULT_ANSWER_BYTES,
  concurrent_calls: 4,
  queued_calls: 32,
  // A cold 100-file read in a deep tree is ~250 requests; a history page without verification is 2–4.
  upstream_requests_per_call: 300,
  // Half of a personal token's 5,000/h: one perimeter cannot spend the whole budget of the others.
  upstream_requests_per_hour: 2_500,
} as const;

/** Fixed-window counters per key, in this process. The clock is passed in, so the limiter is testable without waiting. */
export class RateLimiter {
  private readonly windows = new Map<string, CountWindow>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * Counts one event against `limit` per `windowMs` for `key`. Returns undefined when it fits, or the seconds to
   * wait when the window is full (the event is then not counted).
   */
  take(key: string, limit: number, windowMs: number): number | undefined {
    const { next, waitSeconds } = takeWindow(this.windows.get(key), this.now(), limit, windowMs);
    this.windows.set(key, next);
    return waitSeconds;
  }

  /** Gives back one event taken in the current window (an event that turned out to cost nothing). */
  give(key: string): void {
    const w = giveWindow(this.windows.get(key));
    if (w) this.windows.set(key, w);
  }
}

/**
 * Per-key bounded concurrency: at most `max` holders at once, at most `queue` waiting, first come first served.
 * One perimeter's flood then waits in its own lane (or is told it is busy) instead of taking the process's memory and
 * event loop from every other perimeter.
 */
export class Gate {
  private readonly lanes = new Map<string, { running: number; waiting: (() => void)[] }>();

  /** A promise of the release function once a slot is free; undefined when the lane's queue is full. */
  enter(key: string, max: number, queue: number): Promise<() => void> | undefined {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      this.lanes.set(key, lane);
    }
    const l = lane;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const next = l.waiting.shift();
      if (next) next();
      else {
        l.running -= 1;
        if (l.running === 0) this.lanes.delete(key);
      }
    };
    if (l.running < max) {
      l.running += 1;
      return Promise.resolve(release);
    }
    if (l.waiting.length >= queue) return undefined;
    // The slot passes straight from the releaser to the next waiter, so `running` never dips and nobody jumps the queue.
    return new Promise((resolve) => l.waiting.push(() => resolve(release)));
  }

  /** Calls running or waiting for `key` (for tests and status). */
  load(key: string): { running: number; waiting: number } {
    const l = this.lanes.get(key);
    return { running: l?.running ?? 0, waiting: l?.waiting.length ?? 0 };
  }
}
