// Restore points: before a proposal's write, the branch head is kept under refs/git-blinder/restore/<id>/<branch>.
// That namespace is never a branch, so no agent can be bound to it, and refs are resolved for agents only as their
// own branch or a full commit id: the ref is the operator's alone.
import { gitFailure, ok, fail, type Failed } from './errors.js';
import { runGit } from '../../gitcli/run.js';
import { branchHead, checkBranchName } from './refs.js';
import type { Repo } from './repo.js';
import { findCheckout, moveCheckout } from './worktree.js';
import type { RestorePoint } from '../types.js';

/** The private namespace. */
export const RESTORE_NAMESPACE = 'refs/git-blinder/restore/';
const ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

const refOf = (id: string, branch: string) => `${RESTORE_NAMESPACE}${id}/${branch}`;

/** Keeps `branch`'s head under `id`; `conflict` when the id is taken (a restore point is never overwritten). */
export async function createRestorePoint(
  repo: Repo,
  branch: string,
  id: string,
): Promise<{ ok: true; value: RestorePoint } | Failed> {
  if (!ID.test(id)) return fail('invalid', `Not a restore point id: ${id}`);
  const valid = await checkBranchName(repo, branch);
  if (!valid.ok) return valid;
  const head = await branchHead(repo, branch);
  if (!head.ok) return head;
  const existing = await listRestorePoints(repo);
  if (!existing.ok) return existing;
  if (existing.value.some((p) => p.id === id)) return fail('conflict', `Restore point ${id} already exists.`);
  const ref = refOf(id, branch);
  // The all-zero old value makes creation a compare-and-swap too: two creators of one id cannot both succeed.
  const run = await runGit(
    ['update-ref', '-m', 'git-blinder: restore point', ref, head.value, '0'.repeat(head.value.length)],
    repo.call,
  );
  if (run.code !== 0) return gitFailure(run, 'creating a restore point', repo.log);
  return ok({ id, branch, sha: head.value, ref });
}

/** Every restore point of the repository, by id. */
export async function listRestorePoints(repo: Repo): Promise<{ ok: true; value: RestorePoint[] } | Failed> {
  const run = await runGit(
    ['for-each-ref', '--sort=refname', '--format=%(refname)%00%(objectname)', RESTORE_NAMESPACE],
    repo.call,
  );
  if (run.code !== 0) return gitFailure(run, 'listing restore points', repo.log);
  const points: RestorePoint[] = [];
  for (const line of run.stdout.toString('utf8').split('\n')) {
    if (line === '') continue;
    const [ref = '', sha = ''] = line.split('\0');
    const rest = ref.slice(RESTORE_NAMESPACE.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) continue;
    points.push({ id: rest.slice(0, slash), branch: rest.slice(slash + 1), sha, ref });
  }
  return ok(points);
}

/** Deletes every ref of restore point `id` (retention); a point that is already gone is not an error. */
export async function dropRestorePoint(repo: Repo, id: string): Promise<{ ok: true; value: undefined } | Failed> {
  if (!ID.test(id)) return fail('invalid', `Not a restore point id: ${id}`);
  const all = await listRestorePoints(repo);
  if (!all.ok) return all;
  for (const p of all.value.filter((q) => q.id === id)) {
    // Deleted only if it still names the commit listed: a point is never rewritten, so a mismatch means it is gone.
    const run = await runGit(['update-ref', '-d', p.ref, p.sha], repo.call);
    if (run.code !== 0) return gitFailure(run, 'deleting a restore point', repo.log);
  }
  return ok(undefined);
}

/**
 * Moves the branch back to restore point `id`. The head it leaves is kept first as `<id>-undo`, so a restore can be
 * undone the same way; the checkout (if any) moves with the ref, or nothing moves at all.
 */
export async function applyRestorePoint(
  repo: Repo,
  id: string,
): Promise<{ ok: true; value: { point: RestorePoint; from: string } } | Failed> {
  const all = await listRestorePoints(repo);
  if (!all.ok) return all;
  const point = all.value.find((p) => p.id === id);
  if (point === undefined) return fail('not_found', `No restore point ${id}.`);
  const head = await branchHead(repo, point.branch);
  if (!head.ok) return head;
  if (head.value === point.sha) return ok({ point, from: head.value });
  const undoId = `${id}-undo`.slice(0, 64);
  if (!all.value.some((p) => p.id === undoId)) {
    const undo = await runGit(
      [
        'update-ref',
        '-m',
        'git-blinder: restore point',
        refOf(undoId, point.branch),
        head.value,
        '0'.repeat(head.value.length),
      ],
      repo.call,
    );
    if (undo.code !== 0) return gitFailure(undo, 'keeping the head before a restore', repo.log);
  }
  const checkout = await findCheckout(repo, point.branch);
  if (!checkout.ok) return checkout;
  const co = checkout.value;
  if (co && !(await moveCheckout(repo, co, head.value, point.sha))) {
    return fail(
      'conflict',
      `The checkout of ${point.branch} has uncommitted changes where the restore would change files; commit or stash them first.`,
    );
  }
  const cas = await runGit(
    ['update-ref', '-m', `git-blinder: restore ${id}`, `refs/heads/${point.branch}`, point.sha, head.value],
    repo.call,
  );
  if (cas.code === 0) return ok({ point, from: head.value });
  if (co && !(await moveCheckout(repo, co, point.sha, head.value)))
    throw new Error(`could not roll back the working tree of ${point.branch} after a failed restore`);
  return fail('conflict', `${point.branch} moved while restoring; look again and retry.`);
}
