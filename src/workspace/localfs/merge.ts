// "Would merging that branch conflict?" with `git merge-tree --write-tree`: a real merge computed in memory, written
// only as new objects in the object store; the index, the working tree and every ref stay as they are.
import type { MergePreflight, WsResult } from '../types.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { isFullOid, optionLike, wtGit, type WtContext } from './git.js';

/** Merges `refs/heads/<otherBranch>` into HEAD in memory and reports the outcome. */
export async function readMergePreflight(ctx: WtContext, otherBranch: string): Promise<WsResult<MergePreflight>> {
  if (optionLike(otherBranch) || otherBranch.includes('..') || otherBranch.startsWith('refs/')) {
    return wsFail('invalid', 'A branch is named by its short name.');
  }
  const ref = `refs/heads/${otherBranch}`;
  const exists = await wtGit(ctx, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], 'resolving a branch');
  if (!exists.ok) return exists;
  if (exists.run.code !== 0) return wsFail('not_found', 'No such branch.');
  const r = await wtGit(ctx, ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', 'HEAD', ref], 'computing a merge');
  if (!r.ok) return r;
  if (r.run.code === 128 && r.run.stderr.includes('unrelated histories')) return wsOk({ kind: 'no_merge_base' });
  // A merge driver named by .gitattributes is neutralised to an empty command (repo-config.ts), which git cannot run:
  // the merge fails closed rather than start the repository's program.
  if (r.run.code === 128 && r.run.stderr.includes('failure to merge')) {
    ctx.log('info', 'merge preview refused: a custom merge driver applies', { stderr: r.run.stderr.slice(0, 2000) });
    return wsFail('refused', 'These files use a custom merge driver, which git-blinder never runs: no preview is possible.');
  }
  if (r.run.code !== 0 && r.run.code !== 1) return runFailure(r.run, 'computing a merge', ctx.log);
  const [tree = '', ...rest] = r.run.stdout.toString('utf8').split('\0');
  if (!isFullOid(tree)) throw new Error('merge-tree did not print a tree id first');
  if (r.run.code === 0) return wsOk({ kind: 'clean', tree });
  // The conflicted-file section ends at an empty record (messages, suppressed here, would follow it).
  const end = rest.indexOf('');
  const names = end < 0 ? rest : rest.slice(0, end);
  return wsOk({ kind: 'conflicted', paths: [...new Set(names)] });
}
