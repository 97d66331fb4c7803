// The operations that move the branch: merge (non-interactive; a predicted conflict is declined before anything
// runs, an unpredicted one is aborted), rebase (never interactive; a conflict is aborted), and reset (what a mixed or
// hard reset would lose is captured in the restore point first). Revisions arrive resolved to full ids.
import { failed, git, nulRecords, unexpected, wsOk, type Tree, type WsFailed } from './git.js';
import { declined } from './file-ops.js';
import { dropPoint, takePoint } from './points.js';
import { changedBetween, dirtyTracked, inProgress, resolveCommit } from './refs.js';
import type { ResetMode, WriteOutcome } from '../../writes.js';
import type { WsResult } from '../../types.js';

type Outcome = WsResult<WriteOutcome>;

/** What merging `other` into `head` gives, from `git merge-tree --write-tree` (touches neither index nor tree). */
export type MergeForecast =
  { kind: 'clean'; tree: string } | { kind: 'conflicted'; paths: string[] } | { kind: 'unrelated' };

/** Forecasts a merge of `other` into `head`. */
export async function forecastMerge(tree: Tree, head: string, other: string): Promise<WsResult<MergeForecast>> {
  const run = await git(tree, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', head, other]);
  if (failed(run)) return run;
  const recs = run.stdout.toString('utf8').split('\0');
  if (run.code === 0) return wsOk({ kind: 'clean', tree: recs[0]! });
  if (run.code === 1) {
    // The conflicted-file section ends at an empty record (messages, suppressed here, would follow it).
    const rest = recs.slice(1);
    const end = rest.indexOf('');
    return wsOk({ kind: 'conflicted', paths: [...new Set(end < 0 ? rest : rest.slice(0, end))] });
  }
  if (/unrelated histories/.test(run.stderr)) return wsOk({ kind: 'unrelated' });
  // A custom merge driver is neutralised to "" (repo-config.ts), which git cannot run: fail closed, never run it.
  if (run.stderr.includes('failure to merge')) {
    tree.log('info', 'merge refused: a custom merge driver applies', { stderr: run.stderr.slice(0, 2000) });
    return {
      ok: false,
      error: { code: 'refused', message: 'These files use a custom merge driver, which git-blinder never runs.' },
    };
  }
  return unexpected(tree, run, 'forecasting a merge');
}

/** Unmerged paths of the working tree's index (during a stopped merge or rebase). */
async function unmerged(tree: Tree): Promise<string[]> {
  const run = await git(tree, ['diff-files', '-z', '--name-only', '--diff-filter=U']);
  return failed(run) || run.code !== 0 ? [] : [...new Set(nulRecords(run.stdout))];
}

/** True when `a` is an ancestor of (or equal to) `b`. */
async function isAncestor(tree: Tree, a: string, b: string): Promise<WsResult<boolean>> {
  const run = await git(tree, ['merge-base', '--is-ancestor', a, b]);
  if (failed(run)) return run;
  if (run.code === 0 || run.code === 1) return wsOk(run.code === 0);
  return unexpected(tree, run, 'comparing commits');
}

/** Declines when an operation is already in progress; undefined when the tree is free. */
async function busy(tree: Tree): Promise<Outcome | undefined> {
  const p = await inProgress(tree);
  if (!p.ok) return p;
  return p.value
    ? declined('in_progress', 'A merge, rebase, cherry-pick or revert is in progress in this working tree.')
    : undefined;
}

/** Merges `from` (a branch or full id) into the branch. */
export async function mergeOp(tree: Tree, head: string, from: string): Promise<Outcome> {
  const other = await resolveCommit(tree, from);
  if (!other.ok) return other;
  const b = await busy(tree);
  if (b) return b;
  const up = await isAncestor(tree, other.value, head);
  if (!up.ok) return up;
  if (up.value) return declined('unchanged', 'Already up to date.');
  const f = await forecastMerge(tree, head, other.value);
  if (!f.ok) return f;
  if (f.value.kind === 'conflicted')
    return declined('conflict', 'The merge would conflict; nothing was changed.', f.value.paths);
  if (f.value.kind === 'unrelated') return declined('conflict', 'The branches share no history; nothing was changed.');
  const point = await takePoint(tree, { op: 'merge', branch: tree.branch, previousHead: head, captured: [] });
  if (!point.ok) return point;
  const message = other.value === from ? `Merge commit '${from}'` : `Merge branch '${from}'`;
  const run = await git(tree, [
    'merge',
    '--no-edit',
    '--ff',
    '--no-squash',
    '--no-autostash',
    '--no-verify',
    '--no-gpg-sign',
    '--no-verify-signatures',
    '--no-stat',
    '--no-progress',
    '-m',
    message,
    other.value,
  ]);
  if (failed(run)) return run;
  if (run.code === 0) {
    const now = await resolveCommit(tree, tree.branch);
    return now.ok
      ? wsOk({ kind: 'applied', op: 'merge', head: now.value, previousHead: head, restorePoint: point.value })
      : now;
  }
  return undoStopped(tree, point.value, 'merge', run.stderr);
}

/** After a merge or rebase that did not finish: abort it if it stopped half-way, and decline. */
async function undoStopped(tree: Tree, point: string, what: 'merge' | 'rebase', stderr: string): Promise<Outcome> {
  const stopped = await inProgress(tree);
  if (!stopped.ok) return stopped;
  await dropPoint(tree, point);
  if (stopped.value) {
    const paths = await unmerged(tree);
    const abort = await git(tree, [what, '--abort']);
    if (failed(abort)) return abort;
    if (abort.code !== 0) return unexpected(tree, abort, `aborting a ${what}`);
    return declined('conflict', `The ${what} conflicted and was aborted; nothing was changed.`, paths);
  }
  // git refused before starting: local changes (tracked or untracked) stand where the operation would write.
  tree.log('info', `${what} refused by git`, { stderr: stderr.slice(0, 2000) });
  return declined('dirty', `Local changes in the working tree stand in the way of the ${what}; nothing was changed.`);
}

/** Rebases the branch onto `onto` (a branch or full id); the working tree must have no tracked changes. */
export async function rebaseOp(tree: Tree, head: string, onto: string): Promise<Outcome> {
  const base = await resolveCommit(tree, onto);
  if (!base.ok) return base;
  const b = await busy(tree);
  if (b) return b;
  const up = await isAncestor(tree, base.value, head);
  if (!up.ok) return up;
  if (up.value) return declined('unchanged', 'The branch already contains that commit.');
  await git(tree, ['update-index', '-q', '--refresh']);
  const dirty = await dirtyTracked(tree, head);
  if (!dirty.ok) return dirty;
  if (dirty.value.length > 0)
    return declined('dirty', 'A rebase needs a working tree without tracked changes; nothing was changed.');
  const point = await takePoint(tree, { op: 'rebase', branch: tree.branch, previousHead: head, captured: [] });
  if (!point.ok) return point;
  const run = await git(tree, [
    'rebase',
    '--no-autostash',
    '--no-update-refs',
    '--no-rebase-merges',
    '--no-fork-point',
    '--no-gpg-sign',
    '--no-autosquash',
    '--no-verify',
    '--no-rerere-autoupdate',
    '--no-reschedule-failed-exec',
    '--quiet',
    base.value,
  ]);
  if (failed(run)) return run;
  if (run.code === 0) {
    const now = await resolveCommit(tree, tree.branch);
    return now.ok
      ? wsOk({ kind: 'applied', op: 'rebase', head: now.value, previousHead: head, restorePoint: point.value })
      : now;
  }
  return undoStopped(tree, point.value, 'rebase', run.stderr);
}

/** The paths a reset would change, and of those the ones whose local state it would lose (to capture). */
export async function resetPaths(
  tree: Tree,
  head: string,
  to: string,
  mode: ResetMode,
): Promise<WsResult<{ changed: string[]; lost: string[] }>> {
  const between = await changedBetween(tree, head, to);
  if (!between.ok) return between;
  if (mode === 'soft') return wsOk({ changed: between.value, lost: [] });
  const dirty = await dirtyTracked(tree, head);
  if (!dirty.ok) return dirty;
  const all = [...new Set([...between.value, ...dirty.value])];
  return wsOk({ changed: all, lost: all });
}

/** `git reset --<mode> <to>`, after a restore point capturing what a mixed or hard reset loses. */
export async function resetOp(tree: Tree, head: string, mode: ResetMode, to: string): Promise<Outcome | WsFailed> {
  if (mode !== 'soft' && mode !== 'mixed' && mode !== 'hard')
    return { ok: false, error: { code: 'invalid', message: 'A reset mode is soft, mixed or hard.' } };
  const target = await resolveCommit(tree, to);
  if (!target.ok) return target;
  const paths = await resetPaths(tree, head, target.value, mode);
  if (!paths.ok) return paths;
  if (target.value === head && paths.value.lost.length === 0)
    return declined('unchanged', 'The branch is already there with nothing to reset.');
  const point = await takePoint(tree, {
    op: 'reset',
    branch: tree.branch,
    previousHead: head,
    captured: paths.value.lost,
  });
  if (!point.ok) return point;
  const run = await git(tree, ['reset', `--${mode}`, '-q', '--no-recurse-submodules', target.value, '--']);
  if (failed(run)) return run;
  // A mixed reset exits 1 when files remain modified (not an error); the head is what counts.
  if (run.code !== 0 && run.code !== 1) return unexpected(tree, run, 'resetting the branch');
  return wsOk({ kind: 'applied', op: 'reset', head: target.value, previousHead: head, restorePoint: point.value });
}
