// A fingerprint of everything an operation would act on: the branch head, every revision resolved to its id, and the
// index and on-disk state of every path whose current content the operation would take or throw away. The preview
// returns it; an apply given it declines as `stale` when anything moved since, so what runs is what a person saw.
import { createHash } from 'node:crypto';
import { assertNever } from '../../../core/result.js';
import { indexEntries, worktreeEntries } from './files.js';
import { checkPaths, patchTargets } from './file-ops.js';
import { failed, git, wsOk, type Tree } from './git.js';
import { dirtyTracked, resolveCommit } from './refs.js';
import { pushTarget } from './remote-ops.js';
import type { WriteOp } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** Index and disk state of `paths` as text (blob ids computed, nothing written). */
async function pathState(tree: Tree, head: string, paths: readonly string[]): Promise<WsResult<string[]>> {
  const idx = await indexEntries(tree, paths, head);
  if (!idx.ok) return idx;
  const disk = await worktreeEntries(tree, paths, head, true);
  if (!disk.ok) return disk;
  return wsOk([...idx.value.map((l) => `i ${l}`), ...disk.value.map((l) => `w ${l}`)]);
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
  h.update(JSON.stringify({ branch: tree.branch, head, op: rest }));
  if (patch !== undefined) h.update(createHash('sha256').update(patch).digest('hex'));
  for (const p of extra.value) h.update(`\0${p}`);
  return wsOk(h.digest('hex'));
}
