// A repository's working trees (`git worktree list --porcelain -z`) and the operator's `worktree add`. The repository
// is named by the absolute path of its main working tree (or of a bare repository), never a parent's.
import { realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute } from 'node:path';
import { neutralised } from '../../gitcli/repo-config.js';
import { runGit, type GitCall } from '../../gitcli/run.js';
import type { WorktreeInfo, WsResult } from '../types.js';
import { refused, runFailure, wsFail, wsOk, type WsFailed, type WsLog } from './errors.js';
import { optionLike } from './git.js';

/** An opened repository: where to run repository-wide commands. */
export interface RepoHandle {
  readonly root: string;
  readonly commonDir: string;
  readonly call: GitCall;
}

/** Parses `git worktree list --porcelain -z` (pure): records of attribute lines, each record ending in an empty one. */
export function parseWorktreeList(out: Buffer): WorktreeInfo[] {
  const list: WorktreeInfo[] = [];
  let cur: {
    path: string;
    branch: string | null;
    head: string | null;
    bare: boolean;
    locked: boolean;
    prunable: boolean;
  } | null = null;
  const flush = (): void => {
    if (cur) list.push({ ...cur, main: list.length === 0 });
    cur = null;
  };
  for (const line of out.toString('utf8').split('\0')) {
    if (line === '') {
      flush();
      continue;
    }
    if (line.startsWith('worktree ')) {
      flush();
      cur = {
        path: line.slice('worktree '.length),
        branch: null,
        head: null,
        bare: false,
        locked: false,
        prunable: false,
      };
      continue;
    }
    if (!cur) continue;
    const c = cur as {
      path: string;
      branch: string | null;
      head: string | null;
      bare: boolean;
      locked: boolean;
      prunable: boolean;
    };
    if (line.startsWith('HEAD ')) {
      const sha = line.slice('HEAD '.length);
      c.head = /^0+$/.test(sha) ? null : sha;
    } else if (line.startsWith('branch refs/heads/')) c.branch = line.slice('branch refs/heads/'.length);
    else if (line === 'bare') c.bare = true;
    else if (line === 'locked' || line.startsWith('locked ')) c.locked = true;
    else if (line === 'prunable' || line.startsWith('prunable ')) c.prunable = true;
  }
  flush();
  return list;
}

/** Opens `path` as a repository root: `invalid` when relative, `not_found` when it is not one. */
export async function openRepoRoot(path: string, log: WsLog, timeoutMs: number): Promise<WsResult<RepoHandle>> {
  if (typeof path !== 'string' || path === '' || !isAbsolute(path))
    return wsFail('invalid', 'A local repository is named by its absolute path.');
  let root: string;
  try {
    root = await realpath(path);
    if (!(await stat(root)).isDirectory()) return wsFail('not_found', 'Repository not found.');
  } catch {
    return wsFail('not_found', 'Repository not found.');
  }
  // The ceiling stops discovery at the path itself: a subdirectory of another repository is not a repository.
  const call: GitCall = { cwd: root, env: { GIT_CEILING_DIRECTORIES: dirname(root) }, timeoutMs };
  const run = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir', '--is-bare-repository'], call);
  if (run.code === 128) return wsFail('not_found', 'Repository not found.');
  if (run.code !== 0) return runFailure(run, 'opening a repository', log);
  const [commonDir = '', bare = ''] = run.stdout.toString('utf8').split('\n');
  if (bare === 'true' && commonDir !== root) return wsFail('not_found', 'Repository not found.');
  if (bare === 'false') {
    // Inside a subdirectory of a working tree git reports the toplevel's repository: only the root itself counts.
    const top = await runGit(['rev-parse', '--show-toplevel'], call);
    if (top.code !== 0 || top.stdout.toString('utf8').trim() !== root)
      return wsFail('not_found', 'Repository not found.');
  }
  return wsOk({ root, commonDir, call: { cwd: root, gitDir: commonDir, timeoutMs } });
}

/** Every working tree of the repository, main first. */
export async function listWorktrees(repo: RepoHandle, log: WsLog): Promise<WsResult<readonly WorktreeInfo[]>> {
  const run = await runGit(['worktree', 'list', '--porcelain', '-z'], repo.call);
  if (run.code !== 0) return runFailure(run, 'listing working trees', log);
  return wsOk(parseWorktreeList(run.stdout));
}

/** `git worktree add <path> <branch>` for an existing branch that is checked out nowhere yet. */
export async function addWorktree(
  repo: RepoHandle,
  branch: string,
  path: string,
  log: WsLog,
): Promise<WsResult<WorktreeInfo>> {
  if (optionLike(branch) || branch.startsWith('refs/'))
    return wsFail('invalid', 'A branch is named by its short name.');
  if (!isAbsolute(path) || path.includes('\0'))
    return wsFail('invalid', 'The new working tree is named by an absolute path.');
  const exists = await runGit(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], repo.call);
  if (exists.code !== 0) return wsFail('not_found', `No branch named ${branch}.`);
  const before = await listWorktrees(repo, log);
  if (!before.ok) return before;
  // Operator-only (the /api worktree route): naming the path is the answer to "where?", the next thing asked.
  const holder = before.value.find((w) => w.branch === branch);
  if (holder) {
    return wsFail(
      'conflict',
      `Branch ${branch} is already checked out at ${holder.path}${holder.main ? ' (the main working tree)' : ''}; agents on it already get the workspace tools.`,
    );
  }
  if (
    await stat(path).then(
      () => true,
      () => false,
    )
  )
    return wsFail('conflict', `Something already exists at ${path}; give another --path.`);
  // The checkout applies attributes (filters) and would run hooks: the configuration is neutralised first.
  const call = await neutralised({
    cwd: repo.root,
    env: { GIT_CEILING_DIRECTORIES: dirname(repo.root) },
    ...(repo.call.timeoutMs !== undefined ? { timeoutMs: repo.call.timeoutMs } : {}),
  });
  if (!call) return refused('adding a working tree');
  const run = await runGit(['worktree', 'add', '--quiet', '--end-of-options', path, branch], call);
  if (run.code !== 0) return failedAdd(run, log);
  const after = await listWorktrees(repo, log);
  if (!after.ok) return after;
  const real = await realpath(path).catch(() => path);
  const made = after.value.find((w) => w.branch === branch && (w.path === real || w.path === path));
  if (!made) throw new Error('git worktree add succeeded but the new working tree is not listed');
  return wsOk(made);
}

function failedAdd(run: Parameters<typeof runFailure>[0], log: WsLog): WsFailed {
  if (run.code === 128) {
    log('info', 'git worktree add refused', { stderr: run.stderr.slice(0, 2000) });
    return wsFail('conflict', 'git refused to add the working tree (see the server log).');
  }
  return runFailure(run, 'adding a working tree', log);
}
