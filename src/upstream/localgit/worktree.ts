// Branches checked out in a working tree are updated like receive.denyCurrentBranch=updateInstead: only when the
// tree is clean, moved together with the ref, and rolled back if the ref could not be moved.
import { dirname } from 'node:path';
import { gitFailure, ok, type Failed } from './errors.js';
import { runGit, type GitCall } from '../../gitcli/run.js';
import type { Repo } from './repo.js';

/** A non-bare working tree that has `branch` checked out. */
export interface Checkout {
  readonly call: GitCall;
}

/** Finds the working tree (main or linked) that has `refs/heads/<branch>` checked out, if any. */
export async function findCheckout(repo: Repo, branch: string): Promise<{ ok: true; value: Checkout | null } | Failed> {
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

/** True when the checkout has no staged or unstaged changes to tracked files. */
export async function isClean(repo: Repo, co: Checkout): Promise<{ ok: true; value: boolean } | Failed> {
  // --refresh needs the index lock; the read-only default of GIT_OPTIONAL_LOCKS does not apply to it.
  const refresh = await runGit(['update-index', '-q', '--refresh'], co.call);
  if (refresh.code !== 0 && refresh.code !== 1) return gitFailure(refresh, 'checking the working tree', repo.log);
  const files = await runGit(['diff-files', '--quiet'], co.call);
  if (files.code === 1) return ok(false);
  if (files.code !== 0) return gitFailure(files, 'checking the working tree', repo.log);
  const index = await runGit(['diff-index', '--cached', '--quiet', 'HEAD', '--'], co.call);
  if (index.code === 1) return ok(false);
  if (index.code !== 0) return gitFailure(index, 'checking the working tree', repo.log);
  return ok(true);
}

/** Moves the checkout's index and files from `from` to `to` (refusing to overwrite local changes). */
export async function moveCheckout(co: Checkout, from: string, to: string): Promise<boolean> {
  const run = await runGit(['read-tree', '-u', '-m', from, to], co.call);
  return run.code === 0;
}
