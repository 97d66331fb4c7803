// Working-tree and index diffs through plumbing only: `diff-files` (tree vs index) and `diff-index` (tree or index vs a
// commit). Porcelain `git diff` refreshes a stale index and writes it back, even with optional locks off; these never do.
import type { DiffListing, DiffRequest, WsResult } from '../types.js';
import { parseDiff } from './diff-parse.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { isFullOid, wtGit, type WtContext } from './git.js';
import { EMPTY_TREE } from '../../gitcli/diff-reader.js';

/** Output flags shared by every diff: no external diff or textconv, fixed prefixes and order, submodules not entered. */
const COMMON = ['-z', '--raw', '--numstat', '-p', '--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty', '--src-prefix=a/', '--dst-prefix=b/', '-O/dev/null'];

/** The git command line for a request, or a reason it is refused before git runs. */
export function diffArgs(req: DiffRequest, headCommit: string | null): { ok: true; args: string[] } | { ok: false; message: string } {
  const paths = req.paths ?? [];
  const tail = paths.length > 0 ? ['--', ...paths] : ['--'];
  if (req.against === 'index') {
    if (req.staged) return { ok: false, message: 'The index cannot be compared with itself: use against "head" with staged.' };
    return { ok: true, args: ['diff-files', ...COMMON, ...tail] };
  }
  let left: string;
  if (req.against === 'head') left = headCommit ?? EMPTY_TREE;
  else {
    if (!isFullOid(req.against.commit)) return { ok: false, message: 'A commit is named by its full id.' };
    left = req.against.commit;
  }
  return { ok: true, args: ['diff-index', ...COMMON, '-M', ...(req.staged ? ['--cached'] : []), left, ...tail] };
}

/** Runs one diff; `headCommit` is HEAD's id (null on an unborn branch, compared with the empty tree). */
export async function readDiff(ctx: WtContext, req: DiffRequest, headCommit: string | null): Promise<WsResult<DiffListing>> {
  for (const p of req.paths ?? []) {
    if (p === '' || p.startsWith('/') || p.includes('\0')) return wsFail('invalid', 'Paths are relative to the repository root.');
  }
  const built = diffArgs(req, headCommit);
  if (!built.ok) return wsFail('invalid', built.message);
  const r = await wtGit(ctx, built.args, 'reading a diff', { partial: true });
  if (!r.ok) return r;
  const truncated = r.run.spawnError === 'too_large';
  if (!truncated && r.run.code !== 0) {
    // 128 for a commit id that names nothing (or no tree); anything else is a git failure.
    if (r.run.code === 128 && typeof req.against === 'object') return wsFail('not_found', 'No such commit.');
    return runFailure(r.run, 'reading a diff', ctx.log);
  }
  return wsOk(parseDiff(r.run.stdout, truncated));
}
