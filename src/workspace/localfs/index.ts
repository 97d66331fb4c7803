// The local working-tree adapter: `Workspace` over repositories on this machine's disk, every git process hardened
// (src/gitcli), time-bounded and capped. Nothing is cached between calls: worktrees come and go under us.
import type { WorkTree, Workspace, WsResult } from '../types.js';
import { wsOk, type WsLog } from './errors.js';
import { optionLike } from './git.js';
import { bindWorkTree, worktreeContext, type WtLimits } from './worktree.js';
import { addWorktree, listWorktrees, openRepoRoot } from './worktrees.js';

export type { WsLog } from './errors.js';

/** Options of the local adapter; defaults suit an interactive tool call. */
export interface LocalWorkspaceOptions {
  readonly log?: WsLog;
  /** Per git process (default 30 s). */
  readonly timeoutMs?: number;
  /** Per git process output (default 64 MiB); larger listings come back with `truncated`. */
  readonly maxBytes?: number;
}

/** Creates the local working-tree adapter. */
export function createLocalWorkspace(opts: LocalWorkspaceOptions = {}): Workspace {
  const log: WsLog = opts.log ?? (() => undefined);
  const limits: WtLimits = { timeoutMs: opts.timeoutMs ?? 30_000, maxBytes: opts.maxBytes ?? 64 * 1024 * 1024 };
  return {
    async worktrees(repo) {
      const r = await openRepoRoot(repo, log, limits.timeoutMs);
      if (!r.ok) return r;
      return listWorktrees(r.value, log);
    },
    async open(repo, branch): Promise<WsResult<WorkTree | undefined>> {
      // A name git could misread is checked out nowhere: the same answer as any other unknown branch.
      if (optionLike(branch)) return wsOk(undefined);
      const r = await openRepoRoot(repo, log, limits.timeoutMs);
      if (!r.ok) return r;
      const list = await listWorktrees(r.value, log);
      if (!list.ok) return list;
      const info = list.value.find((w) => w.branch === branch && !w.bare);
      if (!info) return wsOk(undefined);
      const ctx = await worktreeContext(r.value, info, log, limits);
      return wsOk(ctx ? bindWorkTree(ctx, branch) : undefined);
    },
    async addWorktree(repo, branch, path) {
      const r = await openRepoRoot(repo, log, limits.timeoutMs);
      if (!r.ok) return r;
      return addWorktree(r.value, branch, path, log);
    },
  };
}
