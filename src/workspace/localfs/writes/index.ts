// The git adapter of the write port: finds the working tree a branch is checked out in, serialises operations per
// working tree, dispatches each operation, and restores points. Every git process goes through ./git.ts.
import { realpath } from 'node:fs/promises';
import { dirname } from 'node:path';
import { assertNever } from '../../../core/result.js';
import { BRANCH_BUSY, BRANCH_LOCK_UNAVAILABLE, branchLockKey, type BranchLock } from '../../../core/branch-lock.js';
import { runGit } from '../../../gitcli/run.js';
import { checkPaths, commitOp, declined, discardOp, patchOp } from './file-ops.js';
import { failed, git, nulRecords, wsFail, wsOk, type Log, type Tree } from './git.js';
import { materialize, storedContent } from './files.js';
import { mergeOp, rebaseOp, resetOp } from './history-ops.js';
import {
  dropPoint,
  findPoint,
  isPointId,
  listPoints,
  RESTORE_NAMESPACE,
  takePoint,
  type StoredPoint,
} from './points.js';
import { fingerprint } from './fingerprint.js';
import { previewOp } from './preview.js';
import { branchId, changedBetween, dirtyTracked, headId } from './refs.js';
import { branchOp, pushOp } from './remote-ops.js';
import type { WorkTreeWriter, WorkTreeWriters, WriteOp, WriteOutcome } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** Options of the write adapter. */
export interface WritersOptions {
  /** Time limit of each git process (default 60 s). */
  readonly timeoutMs?: number;
  readonly log?: Log;
  /**
   * The lock shared with other processes writing the same working trees (several instances on one store); without
   * it, operations are serialised in this process only.
   */
  readonly branchLock?: BranchLock;
}

/** A repository's git dir and main working tree (null when bare), and where `branch` is checked out. */
interface Located {
  readonly base: Tree;
  readonly checkout: Tree | undefined;
}

/** Creates the write adapter. Operations on one working tree run one at a time, in call order. */
export function createWorkTreeWriters(opts: WritersOptions = {}): WorkTreeWriters {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const log: Log = opts.log ?? (() => undefined);
  const queues = new Map<string, Promise<unknown>>();

  const serial = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const prev = queues.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return next;
  };

  /** Runs a write holding the branch against other processes too, when a shared lock was given. */
  const exclusive = async <T>(common: string, branch: string, fn: () => Promise<WsResult<T>>): Promise<WsResult<T>> => {
    if (opts.branchLock === undefined) return fn();
    const held = await opts.branchLock(branchLockKey(common, branch), fn);
    switch (held.kind) {
      case 'held':
        return held.value;
      case 'busy':
        return wsFail('unavailable', BRANCH_BUSY);
      case 'unavailable':
        return wsFail('unavailable', BRANCH_LOCK_UNAVAILABLE);
      default:
        return assertNever(held, 'branch lock');
    }
  };

  const locate = async (repo: string, branch: string): Promise<WsResult<Located>> => {
    let real: string;
    try {
      real = await realpath(repo);
    } catch {
      return wsFail('not_found', 'Repository not found.');
    }
    const probe = await runGit(['rev-parse', '--path-format=absolute', '--git-common-dir'], {
      cwd: real,
      env: { GIT_CEILING_DIRECTORIES: dirname(real) },
      timeoutMs,
    });
    if (probe.code !== 0) return wsFail('not_found', 'Repository not found.');
    const common = probe.stdout.toString('utf8').trim();
    const base: Tree = { repo, workTree: real, gitDir: common, branch, timeoutMs, log };
    const list = await git(base, ['worktree', 'list', '--porcelain', '-z']);
    if (failed(list)) return list;
    if (list.code !== 0) return wsFail('unavailable', 'git failed while listing working trees; try again later.');
    let path: string | undefined;
    let checkout: string | undefined;
    let bare = false;
    for (const rec of [...nulRecords(list.stdout), '']) {
      if (rec.startsWith('worktree ')) {
        path = rec.slice('worktree '.length);
        bare = false;
      } else if (rec === 'bare') bare = true;
      else if (rec === `branch refs/heads/${branch}` && path !== undefined && !bare) checkout = path;
    }
    if (checkout === undefined) return wsOk({ base, checkout: undefined });
    const dir = await runGit(['rev-parse', '--absolute-git-dir'], { cwd: checkout, timeoutMs });
    if (dir.code !== 0) return wsFail('unavailable', 'git failed while opening a working tree; try again later.');
    return wsOk({ base, checkout: { ...base, workTree: checkout, gitDir: dir.stdout.toString('utf8').trim() } });
  };

  const run = async (tree: Tree, op: WriteOp): Promise<WsResult<WriteOutcome>> => {
    const head = await headId(tree);
    if (!head.ok) return head;
    switch (op.kind) {
      case 'commit':
        return commitOp(tree, head.value, op);
      case 'patch':
        return patchOp(tree, head.value, op.patch);
      case 'discard':
        return discardOp(tree, head.value, op.paths);
      case 'merge':
        return mergeOp(tree, head.value, op.from);
      case 'rebase':
        return rebaseOp(tree, head.value, op.onto);
      case 'reset':
        return resetOp(tree, head.value, op.mode, op.to);
      case 'branch':
        return branchOp(tree, op.name, op.from);
      case 'push':
        return pushOp(tree, head.value);
      default:
        return assertNever(op, 'write operation');
    }
  };

  /** `common`: the repository's common git dir, which names the branch to the shared lock. */
  const writer = (tree: Tree, common: string): WorkTreeWriter => ({
    branch: tree.branch,
    stored: async (paths, maxBytes) => {
      const checked = checkPaths(paths);
      if (!checked.ok) return checked;
      return wsOk(await Promise.all(checked.value.map((p) => storedContent(tree, p, maxBytes))));
    },
    preview: (op) =>
      serial(tree.workTree, async () => {
        const head = await headId(tree);
        return head.ok ? previewOp(tree, head.value, op) : head;
      }),
    apply: (op, expect) =>
      serial(tree.workTree, () =>
        exclusive(common, tree.branch, async () => {
          if (expect !== undefined) {
            const head = await headId(tree);
            if (!head.ok) return head;
            const now = await fingerprint(tree, head.value, op);
            if (!now.ok) return now;
            if (now.value !== expect)
              return declined('stale', 'The working tree or a revision changed since the preview; preview again.');
          }
          return run(tree, op);
        }),
      ),
  });

  return {
    async open(repo, branch) {
      const at = await locate(repo, branch);
      if (!at.ok) return at;
      return wsOk(at.value.checkout ? writer(at.value.checkout, at.value.base.gitDir) : undefined);
    },
    async listRestorePoints(repo) {
      const at = await locate(repo, 'HEAD');
      if (!at.ok) return at;
      const all = await listPoints(at.value.base);
      return all.ok ? wsOk(all.value.map((p) => p.point)) : all;
    },
    async restore(repo, id) {
      const probe = await locate(repo, 'HEAD');
      if (!probe.ok) return probe;
      const found = await findPoint(probe.value.base, id);
      if (!found.ok) return found;
      const at = await locate(repo, found.value.point.branch);
      if (!at.ok) return at;
      const { base, checkout } = at.value;
      if (checkout)
        return serial(checkout.workTree, () =>
          exclusive(base.gitDir, checkout.branch, () => restoreCheckedOut(checkout, found.value)),
        );
      return restoreRef({ ...base, branch: found.value.point.branch }, found.value);
    },
    async dropRestorePoint(repo, id) {
      if (!isPointId(id)) return wsOk(undefined);
      const at = await locate(repo, 'HEAD');
      if (!at.ok) return at;
      await dropPoint(at.value.base, id);
      return wsOk(undefined);
    },
  };
}

/** Restores a point whose branch is checked out: the head moves back (`reset --keep`), captured paths are put back. */
async function restoreCheckedOut(tree: Tree, stored: StoredPoint): Promise<WsResult<WriteOutcome>> {
  const { point, commit } = stored;
  if (point.previousHead === null)
    return declined('not_restorable', 'The branch is checked out; it cannot be removed.');
  const current = await headId(tree);
  if (!current.ok) return current;
  const dirty = await dirtyTracked(tree, current.value);
  if (!dirty.ok) return dirty;
  // A commit or a discard leaves its captured paths clean: one that is dirty now was edited since, and putting the
  // captured state back would overwrite that edit.
  if ((point.op === 'commit' || point.op === 'discard') && point.captured.some((p) => dirty.value.includes(p))) {
    return declined('dirty', 'Local changes would be overwritten by the restore; nothing was changed.');
  }
  const moved =
    current.value === point.previousHead
      ? wsOk<string[]>([])
      : await changedBetween(tree, current.value, point.previousHead);
  if (!moved.ok) return moved;
  const captured = [...new Set([...dirty.value, ...point.captured, ...moved.value])];
  const mine = await takePoint(tree, { op: 'restore', branch: tree.branch, previousHead: current.value, captured });
  if (!mine.ok) return mine;
  if (current.value !== point.previousHead) {
    // The captured paths are put back whole below, so their state now (in `mine`) must not block the move.
    const clear = await materialize(tree, point.captured, current.value, current.value);
    if (!clear.ok) return clear;
    const reset = await git(tree, ['reset', '--keep', '-q', '--no-recurse-submodules', point.previousHead, '--']);
    if (failed(reset)) return reset;
    if (reset.code !== 0) {
      const ref = `${RESTORE_NAMESPACE}${mine.value}`;
      const back = await materialize(tree, point.captured, `${ref}^2`, ref);
      if (!back.ok) return back;
      await dropPoint(tree, mine.value);
      return declined('dirty', 'Local changes would be overwritten by the restore; nothing was changed.');
    }
  }
  if (point.captured.length > 0) {
    const put = await materialize(tree, point.captured, `${commit}^2`, commit);
    if (!put.ok) return put;
  }
  return wsOk({
    kind: 'applied',
    op: 'restore',
    head: point.previousHead,
    previousHead: current.value,
    restorePoint: mine.value,
  });
}

/** Restores a point whose branch is checked out nowhere: the ref alone moves back (or goes, for a created branch). */
async function restoreRef(tree: Tree, stored: StoredPoint): Promise<WsResult<WriteOutcome>> {
  const { point } = stored;
  if (point.captured.length > 0)
    return declined('not_restorable', 'The branch is not checked out, so captured files have nowhere to go.');
  const current = await branchId(tree, point.branch);
  if (!current.ok) return current;
  if (current.value === undefined && point.previousHead === null)
    return declined('unchanged', 'The branch does not exist.');
  const mine = await takePoint(tree, {
    op: 'restore',
    branch: point.branch,
    previousHead: current.value ?? null,
    captured: [],
  });
  if (!mine.ok) return mine;
  const ref = `refs/heads/${point.branch}`;
  const zero = '0'.repeat((point.previousHead ?? current.value ?? '').length);
  const args =
    point.previousHead === null
      ? ['update-ref', '-m', 'git-blinder: restore', '-d', ref, current.value!]
      : ['update-ref', '-m', 'git-blinder: restore', ref, point.previousHead, current.value ?? zero];
  const run = await git(tree, args);
  if (failed(run)) return run;
  if (run.code !== 0) {
    await dropPoint(tree, mine.value);
    return wsFail('conflict', 'The branch moved during the restore; try again.');
  }
  return wsOk({
    kind: 'applied',
    op: 'restore',
    head: point.previousHead ?? current.value!,
    previousHead: current.value ?? null,
    restorePoint: mine.value,
  });
}
