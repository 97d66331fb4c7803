// How the write adapter runs git on one working tree: hardened flags, the repository's program-valued settings
// neutralised before every command (a command may rewrite a tracked file the configuration includes), the extra
// settings that make merge, rebase, commit and push non-interactive and local, a fixed committer, a time bound, and
// failures translated into WsError once, here. git's stderr goes to the operator log only.
import { neutralised } from '../../../gitcli/repo-config.js';
import { runGit, type GitRun } from '../../../gitcli/run.js';
import type { WsError, WsErrorCode, WsResult } from '../../types.js';

/** Operator log sink (level, message, structured fields). */
export type Log = (level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

/** One working tree a writer acts on. */
export interface Tree {
  /** The repository's configured path (its identity for the caller). */
  readonly repo: string;
  /** Absolute path of the working tree. */
  readonly workTree: string;
  /** Its own git dir (`.git` or `.git/worktrees/<name>`). */
  readonly gitDir: string;
  /** The branch checked out there (short name). */
  readonly branch: string;
  readonly timeoutMs: number;
  readonly log: Log;
}

/**
 * Settings that keep a write command from doing more than it was asked: no recorded resolutions, no autostash, no
 * moving other branches during a rebase, no signatures to verify or make, no tags or submodules pushed along.
 */
const WRITE_CONFIG: readonly string[] = [
  '-c',
  'rerere.enabled=false',
  '-c',
  'rerere.autoUpdate=false',
  '-c',
  'rebase.autoStash=false',
  '-c',
  'rebase.updateRefs=false',
  '-c',
  'rebase.forkPoint=false',
  '-c',
  'rebase.rebaseMerges=false',
  '-c',
  'rebase.autoSquash=false',
  '-c',
  'merge.autoStash=false',
  '-c',
  'merge.verifySignatures=false',
  '-c',
  'push.gpgSign=false',
  '-c',
  'push.followTags=false',
  '-c',
  'push.recurseSubmodules=no',
  '-c',
  'push.autoSetupRemote=false',
  '-c',
  'user.useConfigOnly=false',
  '-c',
  'advice.detachedHead=false',
];

/** The committer of everything git-blinder writes, so the repository's user.* settings never matter. */
export const COMMITTER = { name: 'git-blinder', email: 'git-blinder@localhost' } as const;

/** Options of one command. */
export interface RunOpts {
  readonly input?: Buffer | string;
  /** Extra environment (a temporary index, an author). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra `-c` settings (push allows the file protocol, only there). */
  readonly config?: readonly string[];
}

/** A failure as WsError. */
export function wsFail(code: WsErrorCode, message: string): { ok: false; error: WsError } {
  return { ok: false, error: { code, message } };
}

/** A success. */
export function wsOk<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed WsResult, for early returns. */
export type WsFailed = { ok: false; error: WsError };

/** Runs `git <args>` in the working tree, neutralised; a configuration that cannot be read is a refusal. */
export async function git(tree: Tree, args: readonly string[], opts: RunOpts = {}): Promise<GitRun | WsFailed> {
  const base = {
    cwd: tree.workTree,
    env: {
      GIT_DIR: tree.gitDir,
      GIT_WORK_TREE: tree.workTree,
      GIT_COMMITTER_NAME: COMMITTER.name,
      GIT_COMMITTER_EMAIL: COMMITTER.email,
      GIT_AUTHOR_NAME: COMMITTER.name,
      GIT_AUTHOR_EMAIL: COMMITTER.email,
      // Writes must take the index lock like any git command (the hardened default turns optional locks off for reads).
      GIT_OPTIONAL_LOCKS: '1',
      ...opts.env,
    },
    timeoutMs: tree.timeoutMs,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  };
  const call = await neutralised(base);
  if (call === null) return wsFail('refused', "The repository's configuration could not be read, so nothing was run.");
  const run = await runGit([...WRITE_CONFIG, ...(opts.config ?? []), ...args], call);
  if (run.spawnError === 'timeout') return wsFail('timeout', 'A git process ran past its time limit and was stopped.');
  if (run.spawnError === 'missing') return wsFail('unavailable', 'git is not installed or not on PATH.');
  if (run.spawnError !== undefined) return wsFail('unavailable', 'git failed; try again later.');
  return run;
}

/** True when `r` is a failure rather than a finished git run. */
export function failed(r: GitRun | WsFailed): r is WsFailed {
  return 'ok' in r;
}

/** Runs a command that must succeed; anything else is logged and reported as `unavailable`. */
export async function gitOk(
  tree: Tree,
  args: readonly string[],
  doing: string,
  opts: RunOpts = {},
): Promise<WsResult<Buffer>> {
  const run = await git(tree, args, opts);
  if (failed(run)) return run;
  if (run.code === 0) return wsOk(run.stdout);
  return unexpected(tree, run, doing);
}

/** Logs a git run that should have worked and reports it as `unavailable`. */
export function unexpected(tree: Tree, run: GitRun, doing: string): WsFailed {
  tree.log('warn', `git failed while ${doing}`, { code: run.code, stderr: run.stderr.slice(0, 2000) });
  return wsFail('unavailable', `git failed while ${doing}; try again later.`);
}

/** Splits NUL-separated output into its non-empty records. */
export function nulRecords(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}
