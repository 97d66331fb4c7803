// A working-tree diff as one perimeter sees it. Pure: per-file records (path, counts, patch) in, the window's files,
// recomputed totals, an opaque omitted_count and one page out. The adapter's patches are raw; this is the one place
// that decides which of them an agent may read.
import { sniffBinary } from './binary.js';
import { linkServable } from './symlink.js';
import type { Scope } from './scope.js';
import { wholeFileChange } from './wholefile.js';

/** git's symlink mode: such a record's patch lines are link target texts, judged like get_file judges a link. */
const LINK_MODE = '120000';

/** One file of a raw diff (`git diff-files`/`diff-index -p`, split per file by the adapter). */
export interface RawDiffFile {
  readonly path: string;
  /** The source of a rename or copy. */
  readonly previous_path?: string;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed' | 'unmerged';
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  readonly old_mode?: string;
  readonly new_mode?: string;
  /** Hunks only (from the first `@@`); headers and `index` lines are never served (blob ids of hidden sides). */
  readonly patch?: string;
}

/** A changed path whose patch was never read (the adapter's first pass kept it out): only ever counted. */
export interface UnreadPath {
  readonly path: string;
  readonly from?: string;
}

export interface DiffFileView {
  readonly path: string;
  readonly status: RawDiffFile['status'];
  readonly previous_path?: string;
  readonly additions: number;
  readonly deletions: number;
  readonly binary: boolean;
  readonly patch?: string;
}

export interface DiffCut {
  readonly files: readonly DiffFileView[];
  /** Changed files outside the window (not those the perimeter may write but not read: see filterCommit). */
  readonly omitted_count: number;
  readonly totals: { readonly files: number; readonly additions: number; readonly deletions: number };
}

/** The single line of a symlink side in a link's patch (`-old` / `+new`), if the patch has one. */
export function linkTargetIn(patch: string | undefined, side: '-' | '+'): string | undefined {
  if (patch === undefined) return undefined;
  for (const line of patch.split('\n'))
    if (line.startsWith(side) && !line.startsWith(`${side}${side}${side} `)) return line.slice(1);
  return undefined;
}

/** Whether each side of a record exists inside the window (a link side whose target is hidden does not). */
function sides(f: RawDiffFile, scope: Scope): { old: boolean; new: boolean } {
  const oldPath = f.previous_path ?? f.path;
  let oldSeen = f.status !== 'added' && scope.canRead(oldPath);
  let newSeen = f.status !== 'deleted' && scope.canRead(f.path);
  if (f.old_mode === LINK_MODE && oldSeen) oldSeen = linkServable(oldPath, linkTargetIn(f.patch, '-') ?? '', scope);
  if (f.new_mode === LINK_MODE && newSeen) newSeen = linkServable(f.path, linkTargetIn(f.patch, '+') ?? '', scope);
  return { old: oldSeen, new: newSeen };
}

/**
 * A side shown alone, as an unpaired add or delete of it would be. Counts and patch come from its own content, never
 * from the pairing: the raw counts would tell how similar the hidden side is. A link's content is its target text
 * (in the patch); another file's comes in `whole`, read by the caller; without it, no counts are claimed and no patch.
 */
function alone(
  f: RawDiffFile,
  side: 'added' | 'deleted',
  whole: ReadonlyMap<string, Uint8Array> | undefined,
): DiffFileView {
  const path = side === 'added' ? f.path : (f.previous_path ?? f.path);
  const mode = side === 'added' ? f.new_mode : f.old_mode;
  const link = mode === LINK_MODE ? linkTargetIn(f.patch, side === 'added' ? '+' : '-') : undefined;
  const bytes = link !== undefined ? new TextEncoder().encode(link) : whole?.get(`${side}:${path}`);
  if (bytes === undefined) return { path, status: side, additions: 0, deletions: 0, binary: f.binary };
  const w = wholeFileChange(bytes, side === 'added' ? 'added' : 'removed');
  return {
    path,
    status: side,
    additions: w.additions,
    deletions: w.deletions,
    binary: sniffBinary(bytes),
    ...(w.patch !== undefined ? { patch: w.patch } : {}),
  };
}

/** The sides `cutDiff` would show alone, whose whole content the caller may read (key `added:<path>` / `deleted:<path>`). */
export function lonelySides(files: readonly RawDiffFile[], scope: Scope): string[] {
  const out: string[] = [];
  for (const f of files) {
    const s = sides(f, scope);
    const paired = f.status === 'renamed' || f.status === 'copied';
    const typeChange = f.old_mode === LINK_MODE || f.new_mode === LINK_MODE;
    if ((paired || typeChange) && s.new && !s.old) out.push(`added:${f.path}`);
    if (f.status === 'renamed' && s.old && !s.new) out.push(`deleted:${f.previous_path ?? f.path}`);
  }
  return out;
}

/**
 * Cuts raw diff records to the scope, then narrows to `under` (a directory or file, '' for all). A record both of
 * whose sides are visible is shown as git produced it (patch hunks only); one visible side is shown alone; none is
 * counted in `omitted_count` unless the perimeter may write it (and only on the whole diff, never a narrowed one),
 * as are the `unread` paths. Sorted by path; totals over the shown files.
 */
export function cutDiff(
  files: readonly RawDiffFile[],
  scope: Scope,
  under = '',
  whole?: ReadonlyMap<string, Uint8Array>,
  unread: readonly UnreadPath[] = [],
): DiffCut {
  const out: DiffFileView[] = [];
  let omitted = 0;
  const within = (p: string) => under === '' || p === under || p.startsWith(`${under}/`);
  // Narrowed to a path, nothing hidden is counted: a count per path would tell, file by file, which hidden files
  // changed (narrow to "app/.env", read omitted_count). Only the whole diff carries the opaque total.
  const hide = (...paths: string[]) => {
    if (under === '' && !paths.some((p) => scope.canWrite(p))) omitted++;
  };
  // Changed paths the adapter never read, counted as get_commit counts hidden files: a pair of two such paths (git
  // paired them among themselves) is one change, and a path the perimeter may write is never counted (SPEC §4.11).
  for (const u of unread) {
    if (u.from === undefined) hide(u.path);
    else if (under === '' && !scope.canWrite(u.path) && !scope.canWrite(u.from)) omitted++;
  }
  for (const f of files) {
    const s = sides(f, scope);
    const oldPath = f.previous_path ?? f.path;
    const paired = f.status === 'renamed' || f.status === 'copied';
    let view: DiffFileView | undefined;
    if (f.status === 'added')
      view = s.new ? (f.new_mode === LINK_MODE ? alone(f, 'added', whole) : shown(f)) : undefined;
    else if (f.status === 'deleted')
      view = s.old ? (f.old_mode === LINK_MODE ? alone(f, 'deleted', whole) : shown(f)) : undefined;
    else if (s.old && s.new) view = shown(f);
    else if (s.new) view = alone(f, 'added', whole);
    else if (s.old && !paired) view = alone(f, 'deleted', whole);
    else if (s.old && f.status === 'renamed') view = alone(f, 'deleted', whole);
    // A copy whose new side is hidden changed nothing visible: its source is still there.
    if (view === undefined || !within(view.path)) {
      // A readable path whose only sides are links to hidden targets does not exist: nothing to count, as the twin
      // without the link would count nothing.
      const sidesOf = paired ? [f.path, oldPath] : [f.path];
      if (view === undefined && !sidesOf.some((p) => scope.canRead(p))) hide(...sidesOf);
      continue;
    }
    out.push(view);
  }
  out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let additions = 0;
  let deletions = 0;
  for (const f of out) {
    additions += f.additions;
    deletions += f.deletions;
  }
  return { files: out, omitted_count: omitted, totals: { files: out.length, additions, deletions } };
}

function shown(f: RawDiffFile): DiffFileView {
  const base = { path: f.path, status: f.status, additions: f.additions, deletions: f.deletions, binary: f.binary };
  return {
    ...base,
    ...(f.previous_path !== undefined ? { previous_path: f.previous_path } : {}),
    ...(f.patch !== undefined ? { patch: f.patch } : {}),
  };
}

/** One page of a cut diff: whole files from `offset` until `maxBytes` of patch text (always at least one file). */
export function pageDiff(
  files: readonly DiffFileView[],
  offset: number,
  maxBytes: number,
): { files: DiffFileView[]; next_offset?: number } {
  const page: DiffFileView[] = [];
  let used = 0;
  let i = offset;
  for (; i < files.length; i++) {
    const f = files[i] as DiffFileView;
    const size = f.path.length + (f.patch?.length ?? 0) + 100;
    if (page.length > 0 && used + size > maxBytes) break;
    page.push(f);
    used += size;
  }
  return i < files.length ? { files: page, next_offset: i } : { files: page };
}
