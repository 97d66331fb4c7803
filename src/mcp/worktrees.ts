// Which bindings get the workspace tools: those whose branch is checked out in a working tree of the repository.
// Asking git costs a process, and every new session asks, so answers are cached per repository for a short while
// (a worktree added by the operator shows up within the TTL; sessions keep the tool list they started with).
import type { Binding } from '../core/index.js';
import type { Workspace } from '../workspace/types.js';

/** How long one `git worktree list` answer is reused. */
export const WORKTREE_TTL_MS = 2_000;

/** Tells whether a repository's branch is checked out somewhere; failures (a GitHub repository, git missing) are "no". */
export type WorktreeLookup = (repo: string, branch: string) => Promise<boolean>;

/** A cached lookup over the port's worktree listing. */
export function worktreeLookup(ws: Workspace, ttlMs = WORKTREE_TTL_MS, now: () => number = Date.now): WorktreeLookup {
  const cache = new Map<string, { at: number; branches: Promise<ReadonlySet<string>> }>();
  const branchesOf = async (repo: string): Promise<ReadonlySet<string>> => {
    const r = await ws.worktrees(repo);
    if (!r.ok) return new Set();
    return new Set(r.value.flatMap((w) => (w.bare || w.branch === null ? [] : [w.branch])));
  };
  return async (repo, branch) => {
    const hit = cache.get(repo);
    const t = now();
    if (hit && t - hit.at < ttlMs) return (await hit.branches).has(branch);
    const entry = { at: t, branches: branchesOf(repo) };
    cache.set(repo, entry);
    // Bounded: one entry per registered repository is expected; drop the oldest if a flood of names arrives.
    if (cache.size > 1_000) cache.delete(cache.keys().next().value as string);
    return (await entry.branches).has(branch);
  };
}

/** The binding as the session sees it: an agent binding marked when its branch has a working tree. */
export function withWorktree(binding: Binding | undefined, checkedOut: boolean): Binding | undefined {
  if (binding === undefined || binding.surface !== 'agent' || !checkedOut) return binding;
  return { ...binding, worktree: true };
}
