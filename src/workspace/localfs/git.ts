// How every git process of one working tree is started: GIT_DIR and GIT_WORK_TREE pinned (no discovery), the
// hardened flags of src/gitcli, the repository's program-valued keys neutralised afresh for each command (an included
// file may be tracked and just rewritten), a time bound and an output cap per process.
import { neutralised } from '../../gitcli/repo-config.js';
import { runGit, type GitCall, type GitRun } from '../../gitcli/run.js';
import { refused, runFailure, type WsFailed, type WsLog } from './errors.js';

/** One opened working tree, as the adapter's files share it. */
export interface WtContext {
  /** Real path of the working tree's top directory. */
  readonly root: string;
  /** Absolute git dir of this working tree (`.git` or `.git/worktrees/<name>`). */
  readonly gitDir: string;
  /** The repository's common dir (objects and refs shared by all worktrees). */
  readonly commonDir: string;
  readonly log: WsLog;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** The base call for this working tree (time-bounded; the output cap is the caller's to add). */
export function baseCall(ctx: WtContext, extra: Partial<GitCall> = {}): GitCall {
  return { cwd: ctx.root, gitDir: ctx.gitDir, env: { GIT_WORK_TREE: ctx.root }, timeoutMs: ctx.timeoutMs, ...extra };
}

/** What `wtGit` hands back: the run (its exit code is the caller's to judge) or a translated failure. */
export type WtRun = { readonly ok: true; readonly run: GitRun } | WsFailed;

/**
 * Runs `git <args>` in the working tree with its configuration neutralised. A process that could not run to the end
 * is a failure, except `too_large` when `partial` is set: the caller then parses a prefix and says `truncated`.
 */
export async function wtGit(
  ctx: WtContext,
  args: readonly string[],
  doing: string,
  opts: { input?: string; partial?: boolean } = {},
): Promise<WtRun> {
  // The configuration listing is read uncapped: a small answer cap must not turn into a refusal to neutralise.
  const call = await neutralised(baseCall(ctx, opts.input !== undefined ? { input: opts.input } : {}));
  if (!call) return refused(doing);
  const run = await runGit(args, { ...call, maxBytes: ctx.maxBytes });
  if (run.code === null && !(opts.partial === true && run.spawnError === 'too_large'))
    return runFailure(run, doing, ctx.log);
  return { ok: true, run };
}

/** A revision or branch argument that git could read as an option is refused before git runs. */
export function optionLike(arg: string): boolean {
  return arg.startsWith('-') || arg === '' || /[\0\n\r]/.test(arg);
}

/** A full object id (sha1 or sha256), lower-case hex. */
export function isFullOid(s: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(s);
}
