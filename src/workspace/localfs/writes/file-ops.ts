// The operations that act on named files: commit exactly the listed files as they are on disk, apply a patch to the
// working tree, discard local changes of the listed files. Each takes its restore point first and is declined, with
// nothing changed, when there is nothing to do.
import { normalizePath } from '../../../core/path.js';
import { patchPaths } from '../../../core/patch-paths.js';
import { commitTree, indexEntries, materialize, setIndex, withTempIndex } from './files.js';
import { failed, git, gitOk, nulRecords, unexpected, wsFail, wsOk, type Tree } from './git.js';
import { dropPoint, takePoint } from './points.js';
import { changedBetween, inProgress } from './refs.js';
import type { Identity, WriteOutcome } from '../../writes.js';
import type { WsResult } from '../../types.js';

type Outcome = WsResult<WriteOutcome>;

/** A declined outcome. */
export function declined(
  reason: Extract<WriteOutcome, { kind: 'declined' }>['reason'],
  message: string,
  paths: readonly string[] = [],
): Outcome {
  return wsOk({ kind: 'declined', reason, message, paths });
}

/** Validated, distinct repository paths (at least one); `invalid` otherwise. */
export function checkPaths(paths: readonly string[]): WsResult<string[]> {
  if (!Array.isArray(paths) || paths.length === 0) return wsFail('invalid', 'At least one path is required.');
  const out: string[] = [];
  for (const p of paths) {
    const n = normalizePath(p);
    if (!n.ok || n.value === '') return wsFail('invalid', 'Not a valid file path.');
    if (out.includes(n.value)) return wsFail('invalid', 'The same path is listed twice.');
    out.push(n.value);
  }
  return wsOk(out);
}

/** Builds the commit of exactly `paths` as on disk, on top of `head`, in a scratch index; declined when one is unchanged. */
async function buildCommit(
  tree: Tree,
  head: string,
  paths: string[],
  message: string,
  author: Identity,
): Promise<WsResult<{ commit: string; lines: string[] } | WriteOutcome>> {
  return withTempIndex(async (env) => {
    const read = await gitOk(tree, ['read-tree', head], 'preparing a commit', { env });
    if (!read.ok) return read;
    const add = await git(tree, ['update-index', '--add', '--remove', '--', ...paths], { env });
    if (failed(add)) return add;
    if (add.code !== 0)
      return wsOk({
        kind: 'declined',
        reason: 'unchanged',
        message: 'A listed path is not a file of the working tree.',
        paths: [],
      });
    const diff = await gitOk(
      tree,
      ['diff-index', '--cached', '-z', '--name-only', '--no-renames', head, '--'],
      'preparing a commit',
      { env },
    );
    if (!diff.ok) return diff;
    const changed = new Set(nulRecords(diff.value));
    const same = paths.filter((p) => !changed.has(p));
    if (same.length > 0)
      return wsOk({
        kind: 'declined',
        reason: 'unchanged',
        message: 'A listed path has no change to commit.',
        paths: same,
      });
    const t = await gitOk(tree, ['write-tree'], 'preparing a commit', { env });
    if (!t.ok) return t;
    const body = message.endsWith('\n') ? message : `${message}\n`;
    const commit = await commitTree(tree, t.value.toString('utf8').trim(), [head], body, {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
    });
    if (!commit.ok) return commit;
    const lines = await indexEntries(tree, paths, head, env);
    return lines.ok ? wsOk({ commit: commit.value, lines: lines.value }) : lines;
  });
}

/** Commits exactly `paths` as they are in the working tree; every other staged or unstaged change stays as it was. */
export async function commitOp(
  tree: Tree,
  head: string,
  op: { message: string; paths: readonly string[]; author: Identity },
): Promise<Outcome> {
  if (typeof op.message !== 'string' || op.message.trim() === '')
    return wsFail('invalid', 'A commit message is required.');
  const a = op.author;
  if (!a || /[<>\n\0]/.test(a.name + a.email) || a.name.trim() === '' || a.email.trim() === '') {
    return wsFail('invalid', 'The author needs a name and an email without <, > or line breaks.');
  }
  const paths = checkPaths(op.paths);
  if (!paths.ok) return paths;
  const busy = await inProgress(tree);
  if (!busy.ok) return busy;
  if (busy.value)
    return declined('in_progress', 'A merge, rebase, cherry-pick or revert is in progress in this working tree.');
  const built = await buildCommit(tree, head, paths.value, op.message, a);
  if (!built.ok || 'kind' in built.value) return built as Outcome;
  // The committed paths are captured too: restoring puts back the uncommitted work the commit took, not the old head's files.
  const point = await takePoint(tree, { op: 'commit', branch: tree.branch, previousHead: head, captured: paths.value });
  if (!point.ok) return point;
  const cas = await git(tree, [
    'update-ref',
    '-m',
    'git-blinder: commit',
    `refs/heads/${tree.branch}`,
    built.value.commit,
    head,
  ]);
  if (failed(cas)) return cas;
  if (cas.code !== 0) {
    await dropPoint(tree, point.value);
    return wsFail('conflict', 'The branch moved while the commit was prepared; preview again.');
  }
  // The real index now agrees with the new head for these paths (so they do not read as staged reversions). The
  // commit has landed either way, so a failure here (another process holds the index lock) is logged, not reported.
  const set = await setIndex(tree, paths.value, built.value.lines, head);
  if (!set.ok)
    tree.log('warn', 'commit landed but the index could not be updated for its paths', { error: set.error.message });
  else await git(tree, ['update-index', '-q', '--refresh']);
  return wsOk({
    kind: 'applied',
    op: 'commit',
    head: built.value.commit,
    previousHead: head,
    restorePoint: point.value,
  });
}

/** The paths a patch touches, cross-checked against git's own reading; declined when the two disagree. */
export async function patchTargets(
  tree: Tree,
  patch: Uint8Array,
): Promise<WsResult<{ paths: readonly string[] } | WriteOutcome>> {
  const parsed = patchPaths(Buffer.from(patch).toString('utf8'));
  if (!parsed.ok) return wsOk({ kind: 'declined', reason: 'does_not_apply', message: parsed.message, paths: [] });
  const numstat = await git(tree, ['apply', '-z', '--numstat'], { input: Buffer.from(patch) });
  if (failed(numstat)) return numstat;
  if (numstat.code !== 0)
    return wsOk({ kind: 'declined', reason: 'does_not_apply', message: 'git cannot read the patch.', paths: [] });
  const names = nulRecords(numstat.stdout).map((r) => r.split('\t').slice(2).join('\t'));
  const known = new Set(parsed.value.paths);
  if (names.length !== parsed.value.sections || names.some((n) => !known.has(n))) {
    return wsOk({
      kind: 'declined',
      reason: 'does_not_apply',
      message: 'The patch cannot be read safely: git reads its files differently.',
      paths: [],
    });
  }
  return wsOk({ paths: parsed.value.paths });
}

/** Applies a git-format patch to the working tree (not the index), all files or none. */
export async function patchOp(tree: Tree, head: string, patch: Uint8Array): Promise<Outcome> {
  if (!(patch instanceof Uint8Array) || patch.length === 0) return wsFail('invalid', 'A patch is required.');
  const targets = await patchTargets(tree, patch);
  if (!targets.ok || 'kind' in targets.value) return targets as Outcome;
  const check = await git(tree, ['apply', '--check'], { input: Buffer.from(patch) });
  if (failed(check)) return check;
  if (check.code !== 0) {
    tree.log('info', 'patch does not apply', { stderr: check.stderr.slice(0, 2000) });
    return declined('does_not_apply', 'The patch does not apply to the working tree as it is.');
  }
  const point = await takePoint(tree, {
    op: 'patch',
    branch: tree.branch,
    previousHead: head,
    captured: targets.value.paths,
  });
  if (!point.ok) return point;
  const run = await git(tree, ['apply'], { input: Buffer.from(patch) });
  if (failed(run)) return run;
  if (run.code !== 0) return unexpected(tree, run, 'applying a patch that passed its check');
  return wsOk({ kind: 'applied', op: 'patch', head, previousHead: head, restorePoint: point.value });
}

/** Discards the index and working-tree changes of `paths` (back to HEAD; untracked files removed), stash first. */
export async function discardOp(tree: Tree, head: string, list: readonly string[]): Promise<Outcome> {
  const paths = checkPaths(list);
  if (!paths.ok) return paths;
  const point = await takePoint(tree, {
    op: 'discard',
    branch: tree.branch,
    previousHead: head,
    captured: paths.value,
  });
  if (!point.ok) return point;
  // The capture is exact (content, not stat data): a path is changed when its captured state differs from HEAD.
  const ref = `refs/git-blinder/restore/${point.value}`;
  const w = await changedBetween(tree, head, ref);
  const i = await changedBetween(tree, head, `${ref}^2`);
  if (!w.ok || !i.ok) return !w.ok ? w : (i as WsResult<never>);
  const changed = new Set([...w.value, ...i.value]);
  const same = paths.value.filter((p) => !changed.has(p));
  if (same.length > 0) {
    await dropPoint(tree, point.value);
    return declined('unchanged', 'A listed path has no change to discard.', same);
  }
  const put = await materialize(tree, paths.value, head, head);
  if (!put.ok) return put;
  return wsOk({ kind: 'applied', op: 'discard', head, previousHead: head, restorePoint: point.value });
}
