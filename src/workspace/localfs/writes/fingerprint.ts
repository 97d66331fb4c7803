// A fingerprint of everything an operation would act on, and nothing else: for an operation on paths (commit, discard,
// patch) the head's, the index's and the disk's state of those paths; for a history operation (merge, rebase, reset)
// the branch head it starts from; every revision resolved to its id; for a push, where it pushes to. The preview
// returns it; an apply given it declines as `stale` when anything moved since, so what runs is what a person saw —
// and approving one proposal leaves another fresh unless it changed what that other one touches (issue 20).
import { createHash } from 'node:crypto';
import { assertNever } from '../../../core/result.js';
import { indexEntries, worktreeEntries } from './files.js';
import { checkPaths, patchTargets } from './file-ops.js';
import { failed, git, wsOk, type Tree } from './git.js';
import { dirtyTracked, resolveCommit } from './refs.js';
import { pushTarget } from './remote-ops.js';
import type { WriteOp } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** Head, index and disk state of `paths` as text (blob ids computed, nothing written). */
async function pathState(tree: Tree, head: string, paths: readonly string[]): Promise<WsResult<string[]>> {
  const idx = await indexEntries(tree, paths, head);
  if (!idx.ok) return idx;
  const disk = await worktreeEntries(tree, paths, head, true);
  if (!disk.ok) return disk;
  const committed = await headEntries(tree, head, paths);
  if (!committed.ok) return committed;
  return wsOk([
    ...committed.value.map((l) => `h ${l}`),
    ...idx.value.map((l) => `i ${l}`),
    ...disk.value.map((l) => `w ${l}`),
  ]);
}

/** The head's entries for `paths` (mode, id, path), absent ones as a fixed marker: a path op is stale only when they move. */
async function headEntries(tree: Tree, head: string, paths: readonly string[]): Promise<WsResult<string[]>> {
  if (paths.length === 0) return wsOk([]);
  const run = await git(tree, ['ls-tree', '-z', '--full-tree', head, '--', ...paths]);
  if (failed(run)) return run;
  const found = new Map<string, string>();
  for (const rec of run.stdout.toString('utf8').split('\0')) {
    const tab = rec.indexOf('\t');
    if (tab > 0) found.set(rec.slice(tab + 1), rec.slice(0, tab));
  }
  return wsOk(paths.map((p) => `${found.get(p) ?? 'absent'}\t${p}`));
}

/** Whether an operation starts from the branch head (history operations): then a moved head makes it stale. */
function fromHead(op: WriteOp): boolean {
  switch (op.kind) {
    case 'merge':
    case 'rebase':
    case 'reset':
      return true;
    case 'commit':
    case 'discard':
    case 'patch':
    case 'branch':
    case 'push':
      return false;
    default:
      return assertNever(op, 'write operation');
  }
}

/** The parts of `op`'s fingerprint beyond the head and the op itself; an error when a revision cannot be resolved. */
async function parts(tree: Tree, head: string, op: WriteOp): Promise<WsResult<string[]>> {
  switch (op.kind) {
    case 'commit':
    case 'discard': {
      const paths = checkPaths(op.paths);
      return paths.ok ? pathState(tree, head, paths.value) : paths;
    }
    case 'patch': {
      const t = await patchTargets(tree, op.patch);
      if (!t.ok) return t;
      if ('kind' in t.value) return wsOk(['unreadable']);
      return pathState(tree, head, t.value.paths);
    }
    case 'merge':
    case 'rebase':
    case 'branch': {
      const rev = op.kind === 'merge' ? op.from : op.kind === 'rebase' ? op.onto : op.from;
      const id = await resolveCommit(tree, rev);
      return id.ok ? wsOk([`rev ${id.value}`]) : id;
    }
    case 'reset': {
      const id = await resolveCommit(tree, op.to);
      if (!id.ok) return id;
      if (op.mode === 'soft') return wsOk([`rev ${id.value}`]);
      const dirty = await dirtyTracked(tree, head);
      if (!dirty.ok) return dirty;
      const state = await pathState(tree, head, dirty.value);
      return state.ok ? wsOk([`rev ${id.value}`, ...state.value]) : state;
    }
    case 'push': {
      const target = await pushTarget(tree);
      if (!target.ok) return target;
      if (typeof target.value === 'string') return wsOk(['no upstream']);
      const run = await git(tree, ['show-ref', '--verify', '--hash', target.value.tracking]);
      if (failed(run)) return run;
      return wsOk([`upstream ${target.value.ref} ${run.code === 0 ? run.stdout.toString('utf8').trim() : 'unknown'}`]);
    }
    default:
      return assertNever(op, 'write operation');
  }
}

/** The fingerprint of `op` on a branch at `head` (hex SHA-256). */
export async function fingerprint(tree: Tree, head: string, op: WriteOp): Promise<WsResult<string>> {
  const extra = await parts(tree, head, op);
  if (!extra.ok) return extra;
  const h = createHash('sha256');
  const { patch, ...rest } = op as WriteOp & { patch?: Uint8Array };
  h.update(JSON.stringify({ branch: tree.branch, head: fromHead(op) ? head : '', op: rest }));
  if (patch !== undefined) h.update(createHash('sha256').update(patch).digest('hex'));
  for (const p of extra.value) h.update(`\0${p}`);
  return wsOk(h.digest('hex'));
}
