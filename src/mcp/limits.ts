import { DEFAULT_ANSWER_BYTES, giveWindow, takeWindow, type CountWindow } from '../core/index.js';

/** Calls one process runs at once across all perimeters (what its event loop and git processes keep busy). */
export const PROCESS_SLOTS = 32;

/** Server defaults for perimeters that set no limits; generous, so they stop runaway loops rather than real work. */
export const DEFAULT_LIMITS = {
  calls_per_minute: 6_000,
  commits_per_hour: 1_000,
  files_per_commit: 100,
  max_file_bytes: 5 * 1024 * 1024,
  max_answer_bytes: DEFAULT_ANSWER_BYTES,
  // A lone perimeter may use the whole process; under contention the Gate shares the process's slots in turn.
  concurrent_calls: PROCESS_SLOTS,
  queued_calls: 64,
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

interface Lane {
  running: number;
  max: number;
  readonly waiting: (() => void)[];
}

/**
 * Bounded concurrency per key (a perimeter's lane: at most `max` running, at most `queue` waiting, first come first
 * served within the lane) under one bound for the whole process (`capacity` slots). A free slot goes to the lanes
 * with waiters in turn, so a perimeter flooding the process waits its turn like any other instead of taking every
 * slot from the rest; a lone perimeter may use the whole process (the default lane width is the process's).
 */
export class Gate {
  private readonly lanes = new Map<string, Lane>();
  /** Keys of lanes with waiters, in the order they are served next. */
  private readonly turns: string[] = [];
  private running = 0;
  private readonly capacity: number;

  constructor(capacity = PROCESS_SLOTS) {
    this.capacity = capacity;
  }

  /** A promise of the release function once a slot is free; undefined when the lane's queue is full. */
  enter(key: string, max: number, queue: number): Promise<() => void> | undefined {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, max, waiting: [] };
      this.lanes.set(key, lane);
    }
    lane.max = max;
    const l = lane;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      l.running -= 1;
      this.running -= 1;
      if (l.running === 0 && l.waiting.length === 0) this.lanes.delete(key);
      this.dispatch();
    };
    if (l.waiting.length === 0 && l.running < max && this.running < this.capacity) {
      l.running += 1;
      this.running += 1;
      return Promise.resolve(release);
    }
    if (l.waiting.length >= queue) return undefined;
    if (l.waiting.length === 0) this.turns.push(key);
    return new Promise((resolve) => l.waiting.push(() => resolve(release)));
  }

  /**
   * Hands free slots to waiters, one lane at a time in turn. Runs synchronously inside `release`, so no newcomer can
   * take a slot between a release and the waiter it goes to.
   */
  private dispatch(): void {
    let idle = 0;
    while (this.running < this.capacity && this.turns.length > 0 && idle < this.turns.length) {
      const key = this.turns.shift()!;
      const lane = this.lanes.get(key);
      if (!lane || lane.waiting.length === 0) continue;
      if (lane.running >= lane.max) {
        // At its own width: it keeps its place in the rotation and the next lane is asked.
        this.turns.push(key);
        idle += 1;
        continue;
      }
      idle = 0;
      lane.running += 1;
      this.running += 1;
      const next = lane.waiting.shift()!;
      if (lane.waiting.length > 0) this.turns.push(key);
      next();
    }
  }

  /** Calls running or waiting for `key` (for tests and status). */
  load(key: string): { running: number; waiting: number } {
    const l = this.lanes.get(key);
    return { running: l?.running ?? 0, waiting: l?.waiting.length ?? 0 };
  }
}
