// "Would merging that branch conflict?" with `git merge-tree --write-tree`: a real merge computed in memory, written
// only as new objects in the object store; the index, the working tree and every ref stay as they are.
import type { MergePreflight, WsResult } from '../types.js';
import { wsFail, wsOk } from './errors.js';
import { isFullOid, optionLike, wtGit, type WtContext } from './git.js';
import { gitTokens } from './tokens.js';

/** Merges `refs/heads/<otherBranch>` into HEAD in memory and reports the outcome. */
export async function readMergePreflight(ctx: WtContext, otherBranch: string): Promise<WsResult<MergePreflight>> {
  if (optionLike(otherBranch) || otherBranch.includes('..') || otherBranch.startsWith('refs/')) {
    return wsFail('invalid', 'A branch is named by its short name.');
  }
  const ref = `refs/heads/${otherBranch}`;
  const exists = await wtGit(ctx, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], 'resolving a branch');
  if (!exists.ok) return exists;
  if (exists.run.code !== 0) return wsFail('not_found', 'No such branch.');
  // Streamed with no output cap: conflicted hidden paths must not decide whether the answer fits (SPEC §3.4).
  const tokens: string[] = [];
  let ended = false;
  const doing = 'computing a merge';
  const r = await gitTokens(
    ctx,
    ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', 'HEAD', ref],
    doing,
    (tok) => {
      // The conflicted-file section ends at an empty record (messages, suppressed here, would follow it). git runs to
      // its end regardless: its exit code tells a clean merge from a refused one.
      if (tok.length === 0 && tokens.length > 0) ended = true;
      if (!ended) tokens.push(tok.toString('utf8'));
      return true;
    },
  );
  if (!r.ok) return r;
  const end = r.value;
  if (end.kind === 'exit' && end.code === 128 && end.stderr.includes('unrelated histories'))
    return wsOk({ kind: 'no_merge_base' });
  // A merge driver named by .gitattributes is neutralised to an empty command (repo-config.ts), which git cannot run:
  // the merge fails closed rather than start the repository's program.
  if (end.kind === 'exit' && end.code === 128 && end.stderr.includes('failure to merge')) {
    ctx.log('info', 'merge preview refused: a custom merge driver applies', { stderr: end.stderr.slice(0, 2000) });
    return wsFail(
      'refused',
      'These files use a custom merge driver, which git-blinder never runs: no preview is possible.',
    );
  }
  if (end.kind === 'exit' && end.code !== 0 && end.code !== 1)
    return wsFail('unavailable', `git failed while ${doing}; try again later.`);
  const [tree = '', ...names] = tokens;
  if (!isFullOid(tree)) throw new Error('merge-tree did not print a tree id first');
  if (end.kind === 'exit' && end.code === 0) return wsOk({ kind: 'clean', tree });
  return wsOk({ kind: 'conflicted', paths: [...new Set(names)] });
}
