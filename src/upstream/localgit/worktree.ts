// Branches checked out in a working tree are updated with the ref, as `git read-tree -m -u` does for a two-way
// merge: the paths the commit changes must be unmodified in the index and the working tree and must not collide with
// anything untracked or ignored; every other local change is carried over untouched. Moved before the ref and moved
// back if the ref could not be.
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitFailure, ok, type Failed } from './errors.js';
import { neutralised } from '../../gitcli/repo-config.js';
import { runGit, type GitCall } from '../../gitcli/run.js';
import type { Repo } from './repo.js';

const isDirectory = (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

/** A non-bare working tree that has `branch` checked out. */
export interface Checkout {
  readonly call: GitCall;
}

/** Finds the working tree (main or linked) that has `refs/heads/<branch>` checked out, if any. */
export async function findCheckout(repo: Repo, branch: string): Promise<{ ok: true; value: Checkout | null } | Failed> {
  // A bare repository without linked working trees has no checkout at all: no `worktree list` process per write.
  if (repo.bare && !(await isDirectory(join(repo.commonDir, 'worktrees')))) return ok(null);
  const run = await runGit(['worktree', 'list', '--porcelain', '-z'], repo.call);
  if (run.code !== 0) return gitFailure(run, 'listing working trees', repo.log);
  let path: string | null = null;
  let bare = false;
  for (const line of run.stdout.toString('utf8').split('\0')) {
    if (line.startsWith('worktree ')) {
      path = line.slice('worktree '.length);
      bare = false;
    } else if (line === 'bare') bare = true;
    else if (line === `branch refs/heads/${branch}` && path !== null && !bare) {
      // Run inside that tree with its own .git, and never let discovery climb out of it.
      return ok({ call: { cwd: path, env: { GIT_CEILING_DIRECTORIES: dirname(path) } } });
    }
  }
  return ok(null);
}

/**
 * Moves the checkout's index and files from `from` to `to`. False (nothing changed) when a path that differs between
 * the two is modified locally, or when an untracked or ignored file or directory is in the way: `read-tree` without
 * `--exclude-per-directory` treats ignored files as precious too, so nothing uncommitted is ever overwritten or removed.
 * Every git process here runs with the repository's program-valued settings neutralised, read afresh each time.
 */
export async function moveCheckout(repo: Repo, co: Checkout, from: string, to: string): Promise<boolean> {
  // Fresh stat information first, so a file that was only touched does not count as modified.
  const refreshCall = await neutralised(co.call);
  if (!refreshCall) return false;
  const refresh = await runGit(['update-index', '-q', '--ignore-submodules', '--refresh'], refreshCall);
  if (refresh.code !== 0 && refresh.code !== 1) {
    repo.log('warn', 'git failed while refreshing a working tree', {
      code: refresh.code,
      stderr: refresh.stderr.slice(0, 2000),
    });
    return false;
  }
  const call = await neutralised(co.call);
  if (!call) return false;
  if (await uncommittedInTheWay(repo, call, from, to)) return false;
  const run = await runGit(['read-tree', '-u', '-m', from, to], call);
  if (run.code !== 0)
    repo.log('info', 'a working tree refused an update', { code: run.code, stderr: run.stderr.slice(0, 2000) });
  return run.code === 0;
}

/**
 * True when an untracked or ignored file sits at, below, or (as a file) above a path that differs between `from` and
 * `to`. `read-tree -m -u` refuses untracked files itself but overwrites ignored ones, so they are checked here:
 * `ls-files --others` without exclude rules lists both. Also true when the check itself cannot run.
 */
async function uncommittedInTheWay(repo: Repo, call: GitCall, from: string, to: string): Promise<boolean> {
  const diff = await runGit(['diff-tree', '-r', '--name-only', '--no-renames', '-z', from, to], call);
  if (diff.code !== 0) return true;
  const changed = diff.stdout
    .toString('utf8')
    .split('\0')
    .filter((p) => p !== '');
  if (changed.length === 0) return false;
  const above = new Set(
    changed.flatMap((p) =>
      p
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  // `--directory` prints a wholly untracked directory once ("d/"), so a large ignored tree costs one line; writing
  // into such a directory counts as in the way (what it holds is not listed).
  const run = await runGit(['ls-files', '--others', '--directory', '-z', '--', ...changed, ...above], call);
  if (run.code !== 0) {
    repo.log('warn', 'git failed while listing untracked files', { code: run.code, stderr: run.stderr.slice(0, 2000) });
    return true;
  }
  const hit = (entry: string): boolean => {
    const dir = entry.endsWith('/');
    const e = dir ? entry.slice(0, -1) : entry;
    if (!dir && above.has(e)) return true;
    return changed.some((c) => e === c || e.startsWith(`${c}/`) || (dir && c.startsWith(`${e}/`)));
  };
  return run.stdout
    .toString('utf8')
    .split('\0')
    .some((f) => f !== '' && hit(f));
}
