// One catalog of restore points for the operator, whichever write took them: a `push_files` approval keeps the
// branch head as a ref named by the proposal id (upstream/localgit/restore.ts); a working-tree approval keeps a
// stash-like commit named `<time>-<suffix>` (workspace/localfs/writes/points.ts). Both live under
// refs/git-blinder/restore/ of the repository; here they are listed, applied and pruned by the same id the proposal
// names, with what each one keeps.
import {
  keptUntil,
  RESTORE_KEEP_DAYS,
  retentionRule,
  workspaceSteps,
  type Perimeter,
  type Proposal,
  type WorkspaceStep,
} from '../../core/index.js';
import type { ProposalService } from '../../registry/proposals.js';
import type { UpstreamFor } from '../../upstream/types.js';
import type { WorkTreeWriters } from '../../workspace/writes.js';
import type { RestoreApplied, RestoreRow } from './schema.js';

/** Where a point's refs live (both kinds). */
const NAMESPACE = 'refs/git-blinder/restore/';

export interface RestoreCatalogDeps {
  readonly perimeters: () => readonly Perimeter[];
  readonly upstreamFor: UpstreamFor;
  readonly writers?: WorkTreeWriters | undefined;
  readonly proposals?: ProposalService | undefined;
  readonly keepDays?: number;
}

/** A failure of the catalog: an HTTP-facing code and an operator-facing message. */
export interface CatalogFailure {
  readonly code: 'not_found' | 'conflict' | 'upstream';
  readonly message: string;
}
type Out<T> = { ok: true; value: T } | { ok: false; error: CatalogFailure };

/**
 * The point id a proposal's `restore` names. Older records kept a push point's full ref
 * (`refs/git-blinder/restore/<id>/<branch>`); both forms name the same point.
 */
export function pointIdOf(recorded: string): string {
  if (!recorded.startsWith(NAMESPACE)) return recorded;
  const rest = recorded.slice(NAMESPACE.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? rest : rest.slice(0, slash);
}

/**
 * The working-tree points a plan's approval took, oldest first: `first` (the one the proposal names), then one per
 * later step that takes a point (a push takes none), matched in order by operation and branch. The walk stops at the
 * first point that does not match the next step (a plan that stopped early took fewer).
 */
function planPoints(rows: readonly RestoreRow[], first: RestoreRow, p: Proposal): RestoreRow[] {
  const steps = workspaceSteps(p.change).filter((st) => st.kind !== 'push');
  const branchOf = (st: WorkspaceStep) => (st.kind === 'branch' ? st.name : p.branch);
  const later = rows
    .filter((r) => r.kind === 'tree' && r.repo === first.repo && r.id > first.id)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const chain = [first];
  let at = 0;
  for (const st of steps.slice(1)) {
    const next = later.slice(at).findIndex((r) => r.branch === branchOf(st) || r.branch === p.branch);
    const row = next < 0 ? undefined : later[at + next];
    if (!row || row.op !== st.kind || row.branch !== branchOf(st)) break;
    chain.push(row);
    at += next + 1;
  }
  return chain;
}

/** Lists, applies and prunes every restore point of the repositories the perimeters name. */
export function restoreCatalog(deps: RestoreCatalogDeps) {
  const keepDays = deps.keepDays ?? RESTORE_KEEP_DAYS;
  /** Every repository of a perimeter whose upstream keeps restore points (local git), once. */
  const repos = () =>
    [...new Set(deps.perimeters().map((p) => p.repo))].flatMap((repo) => {
      const points = deps.upstreamFor(repo)?.restorePoints;
      return points ? [{ repo, points }] : [];
    });

  /** Proposals by the point id they name (a push point's id is its proposal's id). */
  const byPoint = async (): Promise<Map<string, Proposal>> => {
    const out = new Map<string, Proposal>();
    for (const p of deps.proposals ? await deps.proposals.list() : []) {
      out.set(p.id, p);
      if ('restore' in p && p.restore !== undefined) out.set(pointIdOf(p.restore), p);
    }
    return out;
  };

  const list = async (): Promise<Out<RestoreRow[]>> => {
    const proposals = await byPoint();
    const rows: RestoreRow[] = [];
    const row = (r: Omit<RestoreRow, 'kept_until' | 'proposal'>, p: Proposal | undefined): RestoreRow => ({
      ...r,
      proposal: p?.id ?? null,
      kept_until: keptUntil({ takenAt: r.taken_at, proposalExpiresAt: p?.expires_at ?? null }, keepDays),
    });
    for (const { repo, points } of repos()) {
      const refs = await points.list(repo);
      if (!refs.ok) return { ok: false, error: { code: 'upstream', message: refs.error.message } };
      for (const pt of refs.value) {
        // An undo point is named after the point it undoes, not after a proposal.
        const p = pt.id.endsWith('-undo') ? undefined : proposals.get(pt.id);
        const taken = p ? ('decided_at' in p ? p.decided_at : p.created_at) : null;
        rows.push(
          row(
            {
              repo,
              id: pt.id,
              kind: 'ref',
              op: p ? p.change.kind : 'restore',
              branch: pt.branch,
              taken_at: taken,
              head: pt.sha,
              stash: [],
            },
            p,
          ),
        );
      }
      if (!deps.writers) continue;
      const trees = await deps.writers.listRestorePoints(repo);
      // A repository with no working tree to write has no working-tree points: nothing to add.
      if (!trees.ok) continue;
      for (const pt of trees.value) {
        rows.push(
          row(
            {
              repo,
              id: pt.id,
              kind: 'tree',
              op: pt.op,
              branch: pt.branch,
              taken_at: pt.createdAt,
              head: pt.previousHead,
              stash: [...pt.captured],
            },
            proposals.get(pt.id),
          ),
        );
      }
    }
    return { ok: true, value: rows };
  };

  const apply = async (given: string): Promise<Out<RestoreApplied>> => {
    const id = pointIdOf(given);
    const all = await list();
    if (!all.ok) return all;
    const hit = all.value.find((r) => r.id === id);
    if (!hit) return { ok: false, error: { code: 'not_found', message: `No restore point "${given}".` } };
    if (hit.kind === 'ref') {
      const points = deps.upstreamFor(hit.repo)?.restorePoints;
      if (!points) return { ok: false, error: { code: 'not_found', message: `No restore point "${given}".` } };
      const out = await points.apply(hit.repo, id);
      if (!out.ok)
        return {
          ok: false,
          error: { code: out.error.code === 'conflict' ? 'conflict' : 'upstream', message: out.error.message },
        };
      return {
        ok: true,
        value: {
          repo: hit.repo,
          id,
          kind: 'ref',
          branch: out.value.point.branch,
          sha: out.value.point.sha,
          from: out.value.from,
          undo: `${id}-undo`.slice(0, 64),
        },
      };
    }
    const writers = deps.writers;
    if (!writers) return { ok: false, error: { code: 'not_found', message: `No restore point "${given}".` } };
    const proposal = hit.proposal === null ? undefined : (await byPoint()).get(id);
    // A plan took one point per step and names the first: all of them are undone, newest first, so each step's
    // stash goes back before the step before it moves the head.
    const chain = proposal && proposal.change.kind === 'plan' ? planPoints(all.value, hit, proposal) : [hit];
    let undo: string | undefined;
    let from: string | null = null;
    for (const pt of [...chain].reverse()) {
      const out = await writers.restore(pt.repo, pt.id);
      if (!out.ok)
        return {
          ok: false,
          error: { code: out.error.code === 'not_found' ? 'not_found' : 'conflict', message: out.error.message },
        };
      const w = out.value;
      switch (w.kind) {
        case 'declined':
          return {
            ok: false,
            error: {
              code: 'conflict',
              message: undo === undefined ? w.message : `${w.message} (later steps were restored; undo: ${undo})`,
            },
          };
        case 'applied':
          if (undo === undefined) {
            undo = w.restorePoint ?? '';
            from = w.previousHead;
          }
          break;
        default: {
          const never: never = w;
          throw new Error(`unhandled outcome ${String(never)}`);
        }
      }
    }
    return {
      ok: true,
      value: { repo: hit.repo, id, kind: 'tree', branch: hit.branch, sha: hit.head, from, undo: undo ?? '' },
    };
  };

  /** Deletes every point the retention rule lets go of at `now`; answers the ids deleted. */
  const prune = async (now: number = Date.now()): Promise<Out<string[]>> => {
    const all = await list();
    if (!all.ok) return all;
    const gone: string[] = [];
    for (const r of all.value) {
      // kept_until already folds in the proposal's TTL (see keptUntil).
      if (r.kept_until === null || Date.parse(r.kept_until) > now) continue;
      const out =
        r.kind === 'ref'
          ? await deps.upstreamFor(r.repo)?.restorePoints?.drop(r.repo, r.id)
          : await deps.writers?.dropRestorePoint(r.repo, r.id);
      if (out && !out.ok) return { ok: false, error: { code: 'upstream', message: out.error.message } };
      gone.push(r.id);
    }
    return { ok: true, value: gone };
  };

  return { list, apply, prune, retention: { keep_days: keepDays, rule: retentionRule(keepDays) } };
}

/** The catalog's interface. */
export type RestoreCatalog = ReturnType<typeof restoreCatalog>;
