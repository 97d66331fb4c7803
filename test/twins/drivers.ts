// The registry of twin drivers the CLI runs: the committed-history driver (this folder) and the working-tree driver
// (test/twins/worktree/index.ts, loaded when it is there: the two halves are built in parallel and land separately).
import type { UpstreamKind } from '../support/both-upstreams.js';
import type { Difference } from './drive.js';
import { runHistoryTwins, unseenKnown } from './history.js';

/** What the CLI asks of a driver. */
export interface HuntRequest {
  readonly seed: number;
  readonly runs: number;
  readonly calls: number | undefined;
  readonly upstreams: readonly UpstreamKind[];
  readonly shrink: boolean;
  /** Ignore the KNOWN lists (see every difference, the way FINDINGS.md was written). */
  readonly noKnown: boolean;
  readonly log: (line: string) => void;
}

/** A driver's verdict: ok, or the smallest failing case, printable. */
export interface HuntOutcome {
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/** One twin driver. */
export interface TwinDriver {
  readonly name: string;
  run(req: HuntRequest): Promise<HuntOutcome>;
}

/** A difference as the CLI prints it: where, the call on each twin, what differed, and the plan to replay it. */
export function describeDifference(d: Difference): string[] {
  const { plan } = d;
  return [
    `upstream ${d.kind}, seed ${plan.seed}, run ${plan.run}, step ${d.step}, binding ${d.call.binding}`,
    `call ${d.call.tool} A ${JSON.stringify(d.argsA)}`,
    ...(JSON.stringify(d.argsA) === JSON.stringify(d.argsB)
      ? []
      : [`     ${' '.repeat(d.call.tool.length)} B ${JSON.stringify(d.argsB)}`]),
    `hidden options: A [${plan.a.options.join(', ')}] B [${plan.b.options.join(', ')}] (similar: A ${plan.a.similar}, B ${plan.b.similar})`,
    `visible commits: ${plan.visible.map((c) => `${c.label}(${Object.keys(c.changes).length})`).join(' ')}${plan.featureFrom ? `, feature from ${plan.featureFrom}` : ''}; links ${plan.links}; max_answer_bytes ${plan.answerCap}`,
    d.diff,
  ];
}

/** The committed-history driver. */
export const historyDriver: TwinDriver = {
  name: 'history',
  async run(req) {
    const lines: string[] = [];
    let ok = true;
    for (const kind of req.upstreams) {
      const r = await runHistoryTwins({
        kind,
        seed: req.seed,
        runs: req.runs,
        calls: req.calls ?? 40,
        shrink: req.shrink,
        ...(req.noKnown ? { known: [] } : {}),
        onRun: ({ plan, calls, ms, differences }) =>
          req.log(
            `history ${kind} run ${plan.run}: ${calls} calls, ${ms} ms, ${differences.filter((d) => d.known).length} known, ${differences.filter((d) => !d.known).length} unknown`,
          ),
      });
      lines.push(
        `history ${kind}: ${r.runs} runs, ${r.calls} calls, ${Math.round(r.ms / 1000)} s; known seen: ${[...r.known].map(([k, n]) => `${k}×${n}`).join(', ') || 'none'}`,
      );
      const unseen = req.noKnown ? [] : unseenKnown(r, kind);
      if (unseen.length > 0)
        lines.push(
          `  KNOWN entries this hunt did not reach (one that long hunts never show may be fixed): ${unseen.join(', ')}`,
        );
      if (r.smallest) {
        ok = false;
        lines.push(
          `  FAILED (smallest case${req.shrink ? '' : ', unshrunk'}):`,
          ...describeDifference(r.smallest).map((l) => `    ${l}`),
        );
      }
    }
    return { ok, lines };
  },
};

/** The shape of test/twins/worktree/index.ts this registry relies on. */
interface WorktreeModule {
  runWorktreeTwins(opts: {
    runs: number;
    seed: number;
    calls?: number;
    known?: readonly unknown[];
    shrink?: boolean;
  }): Promise<{
    runs: number;
    calls: number;
    known: ReadonlyMap<string, number>;
    failure:
      | {
          seed: number;
          path: string | undefined;
          spec: unknown;
          unknown: readonly { tool: string; args: unknown; detail?: string }[];
        }
      | undefined;
  }>;
}

/** The working-tree driver, when test/twins/worktree/index.ts exists (the import is by URL so this file compiles without it). */
async function worktreeDriver(): Promise<TwinDriver | undefined> {
  const here = new URL('./worktree/index.ts', import.meta.url).href;
  const mod = (await import(here).catch(() => undefined)) as Partial<WorktreeModule> | undefined;
  const known = (await import(new URL('./worktree/known.ts', import.meta.url).href).catch(() => undefined)) as
    { KNOWN?: readonly unknown[] } | undefined;
  const run = mod?.runWorktreeTwins;
  if (!run) return undefined;
  return {
    name: 'worktree',
    async run(req) {
      // The working-tree tools exist on the local upstream only.
      const r = await run({
        runs: req.runs,
        seed: req.seed,
        ...(req.calls === undefined ? {} : { calls: req.calls }),
        known: req.noKnown ? [] : (known?.KNOWN ?? []),
        shrink: req.shrink,
      });
      const lines = [
        `worktree: ${r.runs} runs, ${r.calls} calls; known seen: ${[...r.known].map(([k, n]) => `${k}×${n}`).join(', ') || 'none'}`,
      ];
      if (r.failure) {
        lines.push(
          `  FAILED: seed ${r.failure.seed} path ${r.failure.path ?? '-'}`,
          `    ${JSON.stringify(r.failure.spec)}`,
        );
        for (const u of r.failure.unknown)
          lines.push(`    ${u.tool} ${JSON.stringify(u.args)}`, ...(u.detail ? [`    ${u.detail}`] : []));
      }
      return { ok: r.failure === undefined, lines };
    },
  };
}

/** Every driver this checkout has, by name. */
export async function loadDrivers(): Promise<Map<string, TwinDriver>> {
  const drivers = new Map<string, TwinDriver>([[historyDriver.name, historyDriver]]);
  const wt = await worktreeDriver();
  if (wt) drivers.set(wt.name, wt);
  return drivers;
}
