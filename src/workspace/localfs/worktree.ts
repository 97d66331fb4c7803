// One working tree opened for a branch: its real top directory and git dir, checked to belong to the repository, and
// the WorkTree methods bound to them.
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { runGit } from '../../gitcli/run.js';
import type { WorkTree, WorktreeInfo, WsResult } from '../types.js';
import { readChurn, readChurnCut } from './churn.js';
import { readConflictSides } from './conflicts.js';
import { readDiff } from './diff.js';
import { wsOk, type WsLog } from './errors.js';
import type { WtContext } from './git.js';
import { readHead, readOperation, readUpstreamCounts } from './head.js';
import { readIntegrity } from './integrity.js';
import { readMergePreflight } from './merge.js';
import { readWorktreeFile } from './read.js';
import { readStatus, readStatusCut } from './status.js';
import { readSubmodules } from './submodules.js';
import type { RepoHandle } from './worktrees.js';

/** Limits every process of a working tree runs under. */
export interface WtLimits {
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/**
 * The context of `info`'s working tree, or undefined when it is not a usable checkout of this repository (missing,
 * prunable, bare, or its `.git` leads to another repository's common dir).
 */
export async function worktreeContext(
  repo: RepoHandle,
  info: WorktreeInfo,
  log: WsLog,
  limits: WtLimits,
): Promise<WtContext | undefined> {
  if (info.bare || info.prunable) return undefined;
  const root = await realpath(info.path).catch(() => null);
  if (root === null) return undefined;
  const run = await runGit(
    ['rev-parse', '--path-format=absolute', '--absolute-git-dir', '--git-common-dir', '--show-toplevel'],
    {
      cwd: root,
      env: { GIT_CEILING_DIRECTORIES: dirname(root) },
      timeoutMs: limits.timeoutMs,
    },
  );
  if (run.code !== 0) return undefined;
  const [gitDir = '', commonDir = '', top = ''] = run.stdout.toString('utf8').split('\n');
  if (top !== root || commonDir !== repo.commonDir) return undefined;
  return { root, gitDir, commonDir, log, ...limits };
}

/** The WorkTree port over one context. */
export function bindWorkTree(ctx: WtContext, branch: string): WorkTree {
  const headCommit = async (): Promise<WsResult<string | null>> => {
    const h = await readHead(ctx);
    return h.ok ? wsOk(h.value.commit) : h;
  };
  return {
    branch,
    status: (opts) => (opts?.read ? readStatusCut(ctx, opts.read) : readStatus(ctx)),
    diff: async (req) => {
      const head = req.against === 'head' ? await headCommit() : wsOk(null);
      if (!head.ok) return head;
      return readDiff(ctx, req, head.value);
    },
    head: () => readHead(ctx),
    upstreamCounts: (prefixes) => readUpstreamCounts(ctx, prefixes),
    operation: () => readOperation(ctx),
    mergePreflight: (other) => readMergePreflight(ctx, other),
    conflictSides: (path, maxBytes) => readConflictSides(ctx, path, maxBytes),
    submodules: (opts) => readSubmodules(ctx, opts?.read),
    integrity: (opts) => readIntegrity(ctx, opts?.read),
    readFile: (path, maxBytes) => readWorktreeFile(ctx.root, path, maxBytes),
    recentChurn: (prefix, n, opts) =>
      opts?.read ? readChurnCut(ctx, prefix, n, opts.read) : readChurn(ctx, prefix, n),
  };
}
