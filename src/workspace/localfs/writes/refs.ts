// The revisions a write accepts: a branch looked up exactly as refs/heads/<name>, or a full commit id. Never an
// expression (`a~1`, `@{-1}`), never an abbreviated id, never another namespace (refs/git-blinder stays unreachable),
// and what reaches git's argv is always a resolved full id, so nothing user-sent can be read as an option.
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { validateBranchName } from '../../../core/branch.js';
import { failed, git, nulRecords, wsFail, wsOk, type Tree } from './git.js';
import type { WsResult } from '../../types.js';

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** True for a full object id. */
export function isFullId(s: string): boolean {
  return FULL_ID.test(s);
}

/** Checks a branch name (git's check-ref-format rules for refs/heads/<name>); `invalid` otherwise. */
export async function checkBranch(tree: Tree, name: string): Promise<WsResult<string>> {
  if (!validateBranchName(name).ok || name === 'HEAD') return wsFail('invalid', 'Not a valid branch name.');
  const run = await git(tree, ['check-ref-format', `refs/heads/${name}`]);
  if (failed(run)) return run;
  return run.code === 0 ? wsOk(name) : wsFail('invalid', 'Not a valid branch name.');
}

/** The id `refs/heads/<name>` points at, read exactly; undefined when the branch does not exist. */
export async function branchId(tree: Tree, name: string): Promise<WsResult<string | undefined>> {
  const valid = await checkBranch(tree, name);
  if (!valid.ok) return valid;
  const run = await git(tree, ['show-ref', '--verify', '--hash', `refs/heads/${name}`]);
  if (failed(run)) return run;
  return wsOk(run.code === 0 ? run.stdout.toString('utf8').trim() : undefined);
}

/** Resolves a branch name or full id to a commit id; `not_found` for anything that is neither. */
export async function resolveCommit(tree: Tree, rev: string): Promise<WsResult<string>> {
  if (typeof rev !== 'string' || rev === '' || rev.startsWith('-'))
    return wsFail('invalid', 'A revision is a branch name or a full commit id.');
  let id: string;
  if (isFullId(rev)) id = rev;
  else {
    const b = await branchId(tree, rev);
    if (!b.ok) return b;
    if (b.value === undefined) return wsFail('not_found', 'No such branch or commit.');
    id = b.value;
  }
  const run = await git(tree, ['rev-parse', '-q', '--verify', `${id}^{commit}`]);
  if (failed(run)) return run;
  if (run.code !== 0) return wsFail('not_found', 'No such branch or commit.');
  return wsOk(run.stdout.toString('utf8').trim());
}

/** The commit HEAD of the working tree is at; `not_found` on an unborn branch (writes need a first commit). */
export async function headId(tree: Tree): Promise<WsResult<string>> {
  const b = await branchId(tree, tree.branch);
  if (!b.ok) return b;
  if (b.value === undefined) return wsFail('not_found', 'The branch has no commit yet.');
  return wsOk(b.value);
}

/** Paths that differ between two trees-ish (`diff-tree -r --name-only`, renames off so both sides are listed). */
export async function changedBetween(tree: Tree, a: string, b: string): Promise<WsResult<string[]>> {
  const run = await git(tree, [
    'diff-tree',
    '-r',
    '-z',
    '--name-only',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    a,
    b,
    '--',
  ]);
  if (failed(run)) return run;
  if (run.code !== 0) return wsFail('unavailable', 'git failed while comparing commits; try again later.');
  return wsOk(nulRecords(run.stdout));
}

/** Tracked paths whose index or working-tree state differs from HEAD (plumbing: no refresh of the index). */
export async function dirtyTracked(tree: Tree, head: string): Promise<WsResult<string[]>> {
  const run = await git(tree, [
    'diff-index',
    '-z',
    '--name-only',
    '--no-renames',
    '--no-ext-diff',
    '--no-textconv',
    head,
    '--',
  ]);
  if (failed(run)) return run;
  if (run.code !== 0) return wsFail('unavailable', 'git failed while reading local changes; try again later.');
  // diff-index without --cached compares HEAD with the working tree; the index's own staged-only entries follow.
  const cached = await git(tree, ['diff-index', '--cached', '-z', '--name-only', '--no-renames', head, '--']);
  if (failed(cached)) return cached;
  if (cached.code !== 0) return wsFail('unavailable', 'git failed while reading local changes; try again later.');
  return wsOk([...new Set([...nulRecords(run.stdout), ...nulRecords(cached.stdout)])]);
}

/** The operation in progress, from marker files in the git dir (merge, rebase, cherry-pick, revert). */
export async function inProgress(tree: Tree): Promise<WsResult<boolean>> {
  const run = await git(tree, [
    'rev-parse',
    '--git-path',
    'MERGE_HEAD',
    '--git-path',
    'rebase-merge',
    '--git-path',
    'rebase-apply',
    '--git-path',
    'CHERRY_PICK_HEAD',
    '--git-path',
    'REVERT_HEAD',
  ]);
  if (failed(run)) return run;
  if (run.code !== 0) return wsFail('unavailable', 'git failed while reading the working tree; try again later.');
  for (const p of run.stdout
    .toString('utf8')
    .split('\n')
    .filter((s) => s !== '')) {
    const there = await access(resolve(tree.workTree, p)).then(
      () => true,
      () => false,
    );
    if (there) return wsOk(true);
  }
  return wsOk(false);
}
