// What an operation would change, computed without changing anything, so an approval shows the exact consequence and
// the policy can judge every path first. Exact where git can say it cheaply; a rebase lists a superset.
import { assertNever } from '../../../core/result.js';
import { checkPaths } from './file-ops.js';
import { fingerprint } from './fingerprint.js';
import { failed, git, nulRecords, wsOk, type Tree } from './git.js';
import { forecastMerge, resetPaths } from './history-ops.js';
import { patchTargets } from './file-ops.js';
import { pushTarget } from './remote-ops.js';
import { changedBetween, resolveCommit } from './refs.js';
import type { PushPlan, WriteOp, WritePreview } from '../../writes.js';
import type { WsResult } from '../../types.js';

/** The preview of `op` on a branch at `head`. */
export async function previewOp(tree: Tree, head: string, op: WriteOp): Promise<WsResult<WritePreview>> {
  const found = await changes(tree, head, op);
  if (!found.ok) return found;
  const print = await fingerprint(tree, head, op);
  return print.ok ? wsOk({ ...found.value, fingerprint: print.value }) : print;
}

/** The paths (and a merge's conflicts) of the preview. */
async function changes(tree: Tree, head: string, op: WriteOp): Promise<WsResult<Omit<WritePreview, 'fingerprint'>>> {
  const done = (
    paths: readonly string[],
    exact: boolean,
    conflicts: readonly string[] = [],
  ): WsResult<Omit<WritePreview, 'fingerprint'>> =>
    wsOk({ op: op.kind, paths: [...new Set(paths)], exact, conflicts, base: head });
  switch (op.kind) {
    case 'commit':
    case 'discard': {
      const paths = checkPaths(op.paths);
      return paths.ok ? done(paths.value, true) : paths;
    }
    case 'patch': {
      const t = await patchTargets(tree, op.patch);
      if (!t.ok) return t;
      if ('kind' in t.value)
        return {
          ok: false,
          error: {
            code: 'invalid',
            message: t.value.kind === 'declined' ? t.value.message : 'The patch cannot be read.',
          },
        };
      return done(t.value.paths, true);
    }
    case 'merge': {
      const other = await resolveCommit(tree, op.from);
      if (!other.ok) return other;
      const f = await forecastMerge(tree, head, other.value);
      if (!f.ok) return f;
      if (f.value.kind === 'clean') {
        const paths = await changedBetween(tree, head, f.value.tree);
        return paths.ok ? done(paths.value, true) : paths;
      }
      if (f.value.kind === 'unrelated') return done([], true);
      // Conflicted: the paths the other side changed since the merge base, conflicts among them.
      const side = await sinceBase(tree, head, other.value);
      return side.ok ? done([...f.value.paths, ...side.value.theirs], false, f.value.paths) : side;
    }
    case 'rebase': {
      const onto = await resolveCommit(tree, op.onto);
      if (!onto.ok) return onto;
      const side = await sinceBase(tree, head, onto.value);
      return side.ok ? done([...side.value.theirs, ...side.value.ours], false) : side;
    }
    case 'reset': {
      const to = await resolveCommit(tree, op.to);
      if (!to.ok) return to;
      const paths = await resetPaths(tree, head, to.value, op.mode);
      return paths.ok ? done(paths.value.changed, true) : paths;
    }
    case 'branch':
      return done([], true);
    case 'push': {
      const target = await pushTarget(tree);
      if (!target.ok) return target;
      if (typeof target.value === 'string') return withPush(done([], true), { kind: 'none', reason: target.value });
      const t = target.value;
      const tracking = await resolveTracking(tree, t.tracking);
      if (!tracking.ok) return tracking;
      const sent = await git(tree, [
        'rev-list',
        '--max-count=50',
        tracking.value === undefined ? head : `${tracking.value}..${head}`,
      ]);
      if (failed(sent)) return sent;
      const commits =
        sent.code === 0
          ? sent.stdout
              .toString('utf8')
              .split('\n')
              .filter((l) => l !== '')
          : [];
      const push = { kind: 'target' as const, remote: t.remote, branch: t.ref.slice('refs/heads/'.length), commits };
      // Nothing known of the remote side: every file of the branch may be new there.
      const paths =
        tracking.value === undefined ? await allFiles(tree, head) : await changedBetween(tree, tracking.value, head);
      if (!paths.ok) return paths;
      return withPush(done(paths.value, tracking.value !== undefined), push);
    }
    default:
      return assertNever(op, 'write operation');
  }
}

/** A push preview with its plan attached. */
const withPush = <T extends object>(r: WsResult<T>, push: PushPlan): WsResult<T & { push: PushPlan }> =>
  r.ok ? wsOk({ ...r.value, push }) : r;

/** Paths each side changed since the merge base of `head` and `other`. */
async function sinceBase(
  tree: Tree,
  head: string,
  other: string,
): Promise<WsResult<{ ours: string[]; theirs: string[] }>> {
  const mb = await git(tree, ['merge-base', head, other]);
  if (failed(mb)) return mb;
  if (mb.code !== 0) {
    // No common history: every file of either side is replayed or taken.
    const ours = await allFiles(tree, head);
    if (!ours.ok) return ours;
    const theirs = await allFiles(tree, other);
    return theirs.ok ? wsOk({ ours: ours.value, theirs: theirs.value }) : theirs;
  }
  const base = mb.stdout.toString('utf8').trim();
  const ours = await changedBetween(tree, base, head);
  if (!ours.ok) return ours;
  const theirs = await changedBetween(tree, base, other);
  return theirs.ok ? wsOk({ ours: ours.value, theirs: theirs.value }) : theirs;
}

/** The id a remote-tracking ref names, read exactly; undefined when it does not exist. */
async function resolveTracking(tree: Tree, ref: string): Promise<WsResult<string | undefined>> {
  const run = await git(tree, ['show-ref', '--verify', '--hash', ref]);
  if (failed(run)) return run;
  return wsOk(run.code === 0 ? run.stdout.toString('utf8').trim() : undefined);
}

/** Every file path of a commit. */
async function allFiles(tree: Tree, commit: string): Promise<WsResult<string[]>> {
  const run = await git(tree, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit]);
  if (failed(run)) return run;
  return wsOk(run.code === 0 ? nulRecords(run.stdout) : []);
}
