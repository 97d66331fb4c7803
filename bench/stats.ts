// Small statistics helpers shared by every section: percentiles over timing samples and a sequential timer.
import { performance } from 'node:perf_hooks';

/** Summary of a latency sample, in milliseconds. */
export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p25: number;
  readonly median: number;
  readonly p75: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of an ascending array (q in [0, 1]). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] as number;
}

/** Summarises samples (ms), rounded to microseconds. */
export function summarize(samples: readonly number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    n: s.length,
    min: r(s[0] ?? NaN),
    p25: r(percentile(s, 0.25)),
    median: r(percentile(s, 0.5)),
    p75: r(percentile(s, 0.75)),
    p90: r(percentile(s, 0.9)),
    p99: r(percentile(s, 0.99)),
    max: r(s[s.length - 1] ?? NaN),
    mean: r(mean),
  };
}

/**
 * Runs `fn` `warmup` times untimed, then `n` times sequentially; returns each call's duration in ms. With a budget,
 * stops once `budgetMs` has been spent (after at least 20 calls): on a loaded machine 1,000 calls of every series
 * would not fit in a run, and the report states the count actually made.
 */
export async function timeCalls(
  n: number,
  warmup: number,
  fn: (i: number) => Promise<unknown>,
  budgetMs = Infinity,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (i >= 20 && performance.now() - start > budgetMs) break;
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

/** Runs a synchronous `fn` in a tight loop for about `ms` milliseconds; returns calls per second. */
export function opsPerSecond(ms: number, fn: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < 1000; i++) if (fn(i)) sink++;
  let calls = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let i = 0; i < 1000; i++) if (fn(calls + i)) sink++;
    calls += 1000;
    now = performance.now();
  }
  if (sink < 0) console.log(sink);
  return Math.round(calls / ((now - start) / 1000));
}

/** Rounds to `d` decimals. */
export const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;

/** A ratio a/b, rounded, or null when b is 0. */
export const ratio = (a: number, b: number): number | null => (b === 0 ? null : round(a / b, 2));

/** Progress on stderr, so stdout stays the JSON result. */
export function progress(msg: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
}

/**
 * Times several ways of doing the same work round-robin (a, b, c, a, b, c, …) so that load swings on a shared
 * machine hit every mode alike; the ratios between modes are then fairer than with one series after the other.
 * Each mode is given the round's index (warm-up rounds first, then the timed ones: every round has its own), so a
 * mode can take distinct arguments per round; the k-th sample of every mode is from the same round, so samples can
 * be paired. `rotate` starts each round one mode further (a, b, c / b, c, a / …), so that no mode always follows the
 * same one. Stops after `n` rounds or once `budgetMs` is spent (after at least `minRounds` rounds).
 */
export async function timeInterleaved(
  n: number,
  warmup: number,
  fns: Record<string, (round: number) => Promise<unknown>>,
  budgetMs = Infinity,
  minRounds = 20,
  rotate = false,
): Promise<Record<string, number[]>> {
  const names = Object.keys(fns);
  const out: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < warmup; i++) for (const k of names) await fns[k]?.(i);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (i >= minRounds && performance.now() - start > budgetMs) break;
    for (let j = 0; j < names.length; j++) {
      const k = names[rotate ? (i + j) % names.length : j] as string;
      const t = performance.now();
      await fns[k]?.(warmup + i);
      out[k]?.push(performance.now() - t);
    }
  }
  return out;
}
