// The committed-history half of the twin check as one call: `runs` seeded plans on one upstream, every difference
// sorted into known (a KNOWN entry accounts for it) and unknown, and the first unknown one shrunk to the smallest case
// that still shows it (the one call, its producers, and the fewest hidden options).
import type { UpstreamKind } from '../support/both-upstreams.js';
import { runPlan, type Difference } from './drive.js';
import { planFor, withOptions, type Plan } from './generate.js';
import { KNOWN, type KnownEntry } from './known.js';
import { startTwinServers, type TwinServers } from './servers.js';

/** Options of a hunt on one upstream. */
export interface HistoryHuntOptions {
  readonly kind: UpstreamKind;
  readonly seed: number;
  readonly runs: number;
  /** Calls per twin pair. */
  readonly calls: number;
  /** Shrink the first unknown difference (each attempt builds a pair). Default false. */
  readonly shrink?: boolean;
  /** Keep going after an unknown difference (collect them all). Default false. */
  readonly all?: boolean;
  /** The known differences (default KNOWN). */
  readonly known?: readonly KnownEntry[];
  readonly onRun?: (r: { plan: Plan; calls: number; ms: number; differences: readonly Difference[] }) => void;
}

/** What a hunt saw. */
export interface HistoryHuntReport {
  readonly runs: number;
  readonly calls: number;
  readonly ms: number;
  readonly unknown: readonly Difference[];
  /** KNOWN entries seen, by id, with a count. */
  readonly known: ReadonlyMap<string, number>;
  /** Tools called at least once. */
  readonly called: ReadonlySet<string>;
  /** The first unknown difference, shrunk (when asked). */
  readonly smallest: Difference | undefined;
}

const sameFinding = (a: Difference, b: Difference): boolean =>
  a.step === b.step && a.call.tool === b.call.tool && a.known === undefined && b.known === undefined;

/** Every step up to and including `step` (the earlier writes and cursors it may depend on). */
const prefix = (step: number): Set<number> => new Set(Array.from({ length: step + 1 }, (_, i) => i));

/** Shrinks `d` on its plan: first to the fewest calls, then to the fewest hidden options on each twin. */
export async function shrink(servers: TwinServers, d: Difference, known?: readonly KnownEntry[]): Promise<Difference> {
  const reproduces = async (plan: Plan, only: ReadonlySet<number>): Promise<Difference | undefined> => {
    const r = await runPlan(servers, plan, { only, stopAtUnknown: false, ...(known ? { known } : {}) });
    return r.differences.find((x) => sameFinding(x, d));
  };
  let plan = d.plan;
  let best = d;
  // The call alone, if it needs nothing before it; else the whole prefix.
  let only: ReadonlySet<number> = new Set([d.step]);
  const alone = await reproduces(plan, only);
  if (alone) best = alone;
  else only = prefix(d.step);
  for (const twin of ['b', 'a'] as const) {
    for (const option of [...plan[twin].options]) {
      const fewer = withOptions(
        plan,
        twin,
        plan[twin].options.filter((o) => o !== option),
      );
      const still = await reproduces(fewer, only);
      if (still) {
        plan = fewer;
        best = still;
      }
    }
  }
  return best;
}

/** Runs the history twin check on one upstream. */
export async function runHistoryTwins(opts: HistoryHuntOptions): Promise<HistoryHuntReport> {
  const servers = await startTwinServers(opts.kind);
  const t0 = Date.now();
  const unknown: Difference[] = [];
  const known = new Map<string, number>();
  const called = new Set<string>();
  let calls = 0;
  let runs = 0;
  try {
    for (let run = 0; run < opts.runs; run++) {
      const plan = planFor(opts.seed, run, opts.calls);
      const t1 = Date.now();
      const r = await runPlan(servers, plan, {
        stopAtUnknown: !opts.all,
        ...(opts.known ? { known: opts.known } : {}),
      });
      runs++;
      calls += r.calls;
      for (const t of r.called) called.add(t);
      for (const d of r.differences) {
        if (d.known) known.set(d.known.id, (known.get(d.known.id) ?? 0) + 1);
        else unknown.push(d);
      }
      opts.onRun?.({ plan, calls: r.calls, ms: Date.now() - t1, differences: r.differences });
      if (unknown.length > 0 && !opts.all) break;
    }
    const first = unknown[0];
    const smallest = first && opts.shrink ? await shrink(servers, first, opts.known) : first;
    return { runs, calls, ms: Date.now() - t0, unknown, known, called, smallest };
  } finally {
    await servers.close();
  }
}

/** KNOWN entries no run of this hunt showed (candidates for removal once a fix has merged). */
export function unseenKnown(report: HistoryHuntReport, kind: UpstreamKind): string[] {
  return KNOWN.filter((k) => (k.upstream === undefined || k.upstream === kind) && !report.known.has(k.id)).map(
    (k) => k.id,
  );
}
