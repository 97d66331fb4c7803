// The working-tree half of the twin check: seeded pairs of repositories with checked-out working trees that differ only
// in what the perimeter cannot see, every working-tree tool driven on both, answers compared byte for byte.
// `runWorktreeTwins` is what the CI test and the `npm run twins` CLI call.
import fc from 'fast-check';
import { callsArb, type Call } from './calls.js';
import { drivePair, startTwinServers, type Difference } from './drive.js';
import { twinSpecArb, type TwinSpec } from './spec.js';
import { knownClass, type Known } from './known.js';

export { WORKTREE_DRIVEN } from './driven.js';
export type { Difference } from './drive.js';
export { KNOWN } from './known.js';

/** Options of a hunt. */
export interface WorktreeTwinsOptions {
  readonly runs: number;
  readonly seed: number;
  /** Drawn calls per pair besides the baseline (every tool once). Default 30. */
  readonly calls?: number;
  /** git's output cap per process on the servers (default 32 KiB, so "past the cap" stays cheap). */
  readonly capBytes?: number;
  /** Size of the huge hidden diff (default 2.5 × capBytes). */
  readonly hugeBytes?: number;
  /** Differences that are known and not yet fixed (default: none, every difference fails). */
  readonly known?: readonly Known[];
  /** Shrink a failing case to the smallest one (slow: every step builds two repositories). Default false. */
  readonly shrink?: boolean;
  /** Called with the (smallest) failing case. */
  readonly onFailure?: (f: WorktreeFailure) => void;
  /** One line per pair (progress of long hunts). */
  readonly log?: (line: string) => void;
  /** Called after each pair with every difference it showed (known ones included). */
  readonly onPair?: (p: { spec: TwinSpec; calls: readonly Call[]; differences: readonly Difference[] }) => void;
}

/** A pair whose answers differed where no known entry explains it. */
export interface WorktreeFailure {
  readonly seed: number;
  readonly path: string | undefined;
  readonly spec: TwinSpec;
  readonly calls: readonly Call[];
  readonly unknown: readonly Difference[];
}

/** What a hunt saw. */
export interface WorktreeTwinsReport {
  readonly runs: number;
  readonly calls: number;
  /** Known differences seen, by KNOWN entry id. */
  readonly known: ReadonlyMap<string, number>;
  readonly failure: WorktreeFailure | undefined;
}

/** KNOWN entries a hunt never saw (fixed? then remove them). */
export function unseenKnown(known: readonly Known[], report: WorktreeTwinsReport): string[] {
  return known.filter((k) => !report.known.has(k.id)).map((k) => k.id);
}

/** Runs `runs` twin pairs from `seed`; the first unexplained difference fails the hunt (shrunk when asked). */
export async function runWorktreeTwins(opts: WorktreeTwinsOptions): Promise<WorktreeTwinsReport> {
  const capBytes = opts.capBytes ?? 32 * 1024;
  const build = { hugeBytes: opts.hugeBytes ?? Math.ceil(capBytes * 2.5) };
  const servers = await startTwinServers(capBytes);
  const known = new Map<string, number>();
  let runs = 0;
  let calls = 0;
  let last: { spec: TwinSpec; calls: readonly Call[]; unknown: Difference[] } | undefined;
  // Once a pair has failed, shrinking chases its first difference only: each candidate still builds two repositories,
  // but calls only that tool (a shrink step then costs seconds, not the whole baseline).
  let focus: ReadonlySet<string> | undefined;
  try {
    const property = fc.asyncProperty(twinSpecArb, callsArb(opts.calls ?? 30), async (spec, cs) => {
      runs++;
      calls += cs.length;
      const t0 = Date.now();
      const differences = await drivePair(servers, spec, cs, build, focus);
      opts.onPair?.({ spec, calls: cs, differences });
      const unknown: Difference[] = [];
      for (const d of differences) {
        const k = knownClass(opts.known ?? [], spec, d);
        if (k === undefined) unknown.push(d);
        else known.set(k.id, (known.get(k.id) ?? 0) + 1);
      }
      opts.log?.(
        `worktree pair ${runs}${focus ? ' (shrinking)' : ''}: ${cs.length} calls, ${Date.now() - t0} ms, ${differences.length - unknown.length} known, ${unknown.length} unknown`,
      );
      if (unknown.length > 0) {
        last = { spec, calls: cs, unknown };
        focus ??= new Set([unknown[0]!.tool]);
      }
      return unknown.length === 0;
    });
    const out = await fc.check(property, { seed: opts.seed, numRuns: opts.runs, endOnFailure: opts.shrink !== true });
    let failure: WorktreeFailure | undefined;
    if (out.failed && out.counterexample && last) {
      // The last failing evaluation is the smallest one fast-check found (shrinking only keeps failing candidates).
      const [spec, cs] = out.counterexample;
      failure = { seed: opts.seed, path: out.counterexamplePath ?? undefined, spec, calls: cs, unknown: last.unknown };
      opts.onFailure?.(failure);
    } else if (out.failed)
      throw out.errorInstance instanceof Error
        ? out.errorInstance
        : new Error('twin check failed without a counterexample');
    return { runs, calls, known, failure };
  } finally {
    await servers.close();
  }
}
