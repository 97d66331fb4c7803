// Working-tree and index diffs through plumbing only: `diff-files` (tree vs index) and `diff-index` (tree or index vs a
// commit). Porcelain `git diff` refreshes a stale index and writes it back, even with optional locks off; these never do.
//
// With a request's `read`, two passes (SPEC §3.4): names first (every changed path, streamed, no patch, no cap), then
// patches of the accepted paths only, named to git one by one. Pathspecs limit git's rename detection too, so a
// pairing in the second pass is always between two accepted paths.
import type { DiffFile, DiffListing, DiffRequest, UnreadChange, WsResult } from '../types.js';
import { parseDiff } from './diff-parse.js';
import { NameListing, keyOf, type NameRecord } from './diff-names.js';
import { runFailure, wsFail, wsOk } from './errors.js';
import { isFullOid, wtGit, type WtContext } from './git.js';
import { gitTokens, utf8Path } from './tokens.js';
import { EMPTY_TREE } from '../../gitcli/diff-reader.js';

/** Output flags shared by every diff: no external diff or textconv, fixed prefixes and order, submodules not entered. */
const COMMON = [
  '-z',
  '--raw',
  '--numstat',
  '-p',
  '--no-ext-diff',
  '--no-textconv',
  '--ignore-submodules=dirty',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '-O/dev/null',
];
/** The first pass: the same comparison, names and counts only. */
const NAMES = [
  '-z',
  '--raw',
  '--numstat',
  '--no-ext-diff',
  '--no-textconv',
  '--ignore-submodules=dirty',
  '-O/dev/null',
];
/** Bytes of pathspecs one second-pass process takes (well under the kernel's argument limits). */
const PATHSPEC_BYTES = 256 * 1024;

/** The git command line for a request, or a reason it is refused before git runs. */
export function diffArgs(
  req: DiffRequest,
  headCommit: string | null,
  flags: readonly string[] = COMMON,
): { ok: true; args: string[] } | { ok: false; message: string } {
  const paths = req.paths ?? [];
  const tail = paths.length > 0 ? ['--', ...paths] : ['--'];
  if (req.against === 'index') {
    if (req.staged)
      return { ok: false, message: 'The index cannot be compared with itself: use against "head" with staged.' };
    return { ok: true, args: ['diff-files', ...flags, ...tail] };
  }
  let left: string;
  if (req.against === 'head') left = headCommit ?? EMPTY_TREE;
  else {
    if (!isFullOid(req.against.commit)) return { ok: false, message: 'A commit is named by its full id.' };
    left = req.against.commit;
  }
  return { ok: true, args: ['diff-index', ...flags, '-M', ...(req.staged ? ['--cached'] : []), left, ...tail] };
}

/** Runs one diff; `headCommit` is HEAD's id (null on an unborn branch, compared with the empty tree). */
export async function readDiff(
  ctx: WtContext,
  req: DiffRequest,
  headCommit: string | null,
): Promise<WsResult<DiffListing>> {
  for (const p of req.paths ?? []) {
    if (p === '' || p.startsWith('/') || p.includes('\0'))
      return wsFail('invalid', 'Paths are relative to the repository root.');
  }
  const built = diffArgs(req, headCommit);
  if (!built.ok) return wsFail('invalid', built.message);
  if (req.read) return readCutDiff(ctx, req, headCommit, req.read);
  return runPatches(ctx, built.args, typeof req.against === 'object');
}

async function runPatches(ctx: WtContext, args: string[], namesCommit: boolean): Promise<WsResult<DiffListing>> {
  const r = await wtGit(ctx, args, 'reading a diff', { partial: true });
  if (!r.ok) return r;
  const truncated = r.run.spawnError === 'too_large';
  if (!truncated && r.run.code !== 0) {
    // 128 for a commit id that names nothing (or no tree); anything else is a git failure.
    if (r.run.code === 128 && namesCommit) return wsFail('not_found', 'No such commit.');
    return runFailure(r.run, 'reading a diff', ctx.log);
  }
  return wsOk(parseDiff(r.run.stdout, truncated));
}

/** A side of a pair shown on its own: the readable source as a deletion, the readable destination as an addition. */
function single(rec: NameRecord, side: 'from' | 'to', path: string): DiffFile {
  const empty = { origPath: null, additions: 0, deletions: 0, binary: false, patch: new Uint8Array(0) };
  const zero = '0'.repeat(rec.oldOid.length || 40);
  return side === 'from'
    ? { ...empty, path, status: 'deleted', oldMode: rec.oldMode, newMode: '000000', oldOid: rec.oldOid, newOid: zero }
    : { ...empty, path, status: 'added', oldMode: '000000', newMode: rec.newMode, oldOid: zero, newOid: rec.newOid };
}

async function readCutDiff(
  ctx: WtContext,
  req: DiffRequest,
  headCommit: string | null,
  read: (path: string) => boolean,
): Promise<WsResult<DiffListing>> {
  const names = diffArgs(req, headCommit, NAMES);
  if (!names.ok) return wsFail('invalid', names.message);
  const listing = new NameListing();
  const doing = 'listing changed files';
  const end = await gitTokens(ctx, names.args, doing, (t) => {
    listing.push(t);
    return true;
  });
  if (!end.ok) return end;
  if (end.value.kind === 'exit' && end.value.code !== 0) {
    if (end.value.code === 128 && typeof req.against === 'object') return wsFail('not_found', 'No such commit.');
    return wsFail('unavailable', `git failed while ${doing}; try again later.`);
  }
  // Accepted paths (by their exact bytes), unread changes, and every listed path (for the clash check below).
  const accepted = new Map<string, { path: string; rec: NameRecord; side: 'from' | 'to' | 'whole' }>();
  const unread: UnreadChange[] = [];
  const listed: Buffer[] = [];
  const ok = (b: Buffer): string | undefined => {
    const s = utf8Path(b);
    return s !== undefined && read(s) ? s : undefined;
  };
  for (const rec of listing.records) {
    listed.push(rec.path);
    if (rec.from) listed.push(rec.from);
    if (!rec.changed) continue;
    const to = ok(rec.path);
    const from = rec.from ? ok(rec.from) : undefined;
    if (!rec.from) {
      if (to !== undefined) accepted.set(keyOf(rec.path), { path: to, rec, side: 'whole' });
      else unread.push({ path: rec.path.toString('utf8') });
      continue;
    }
    // A pair: each accepted side is read on its own; git may pair it again in the second pass only with another
    // accepted path. Unread sides are counted as get_commit counts them: two unread sides are one change.
    if (to !== undefined)
      accepted.set(keyOf(rec.path), {
        path: to,
        rec,
        side: rec.status === 'copied' && from !== undefined ? 'whole' : 'to',
      });
    if (from !== undefined && rec.status === 'renamed')
      accepted.set(keyOf(rec.from), { path: from, rec, side: 'from' });
    if (to === undefined && from === undefined)
      unread.push({ path: rec.path.toString('utf8'), from: rec.from.toString('utf8') });
    else if (to === undefined) unread.push({ path: rec.path.toString('utf8') });
    else if (from === undefined && rec.status === 'renamed') unread.push({ path: rec.from.toString('utf8') });
  }
  // A literal pathspec also matches below a directory of that name. An accepted path that is a directory of another
  // listed path (a file replaced by a directory, or the reverse) cannot be named to git alone: it is reported from
  // the first pass, without counts or patch.
  const dirs = new Set<string>();
  for (const b of listed) {
    for (let i = b.indexOf(0x2f); i > 0; i = b.indexOf(0x2f, i + 1)) dirs.add(keyOf(b.subarray(0, i)));
  }
  const files: DiffFile[] = [];
  const spec: string[] = [];
  for (const [key, a] of accepted) {
    if (!dirs.has(key)) spec.push(a.path);
    else if (a.side === 'from' || a.side === 'to') files.push(single(a.rec, a.side, a.path));
    else
      files.push({
        ...single(a.rec, 'to', a.path),
        status: a.rec.status,
        oldMode: a.rec.oldMode,
        oldOid: a.rec.oldOid,
      });
  }
  spec.sort();
  let truncated = false;
  for (let i = 0; i < spec.length && !truncated;) {
    const batch: string[] = [];
    let bytes = 0;
    while (i < spec.length && (batch.length === 0 || bytes + Buffer.byteLength(spec[i] as string) < PATHSPEC_BYTES)) {
      bytes += Buffer.byteLength(spec[i] as string) + 1;
      batch.push(spec[i++] as string);
    }
    const args = diffArgs({ ...req, paths: batch }, headCommit);
    if (!args.ok) return wsFail('invalid', args.message);
    const part = await runPatches(ctx, args.args, typeof req.against === 'object');
    if (!part.ok) return part;
    const mine = new Set(batch);
    // Only what was asked for: a pathspec names exactly one listed path here, but nothing else may ride along.
    files.push(...part.value.files.filter((f) => mine.has(f.path) && (f.origPath === null || mine.has(f.origPath))));
    truncated = part.value.truncated;
  }
  return wsOk({ files, truncated, unread });
}
