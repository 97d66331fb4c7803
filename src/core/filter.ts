import type { CommitDetail, CommitFile, CommitStats, CommitSummary, TreeEntry } from './model.js';
import { isWithin } from './path.js';
import { readerIn, type Scope } from './scope.js';
import type { PathTest } from './glob.js';
import type { WholeChange } from './wholefile.js';
import { linkKey, type LinkSide } from './commitlinks.js';

/**
 * Cuts a recursive listing under `base` to what the scope may read. A file shows when readable; a directory shows
 * only when at least one readable file lies below it, so an empty-looking directory never hints at hidden files.
 * With `recursive: false` only the direct children of `base` are returned, still judged on their whole subtree.
 *
 * One pass judges the files; a directory's verdict is settled once (the first readable file below it marks it and
 * every ancestor up to `base`, and the walk up stops at the first ancestor already marked). A one-level listing only
 * needs to know whether each child directory has some readable file, so once one is found the rest of that subtree is
 * not judged at all. Files are judged with `readerIn`: what a directory decides for all its files is settled once
 * per directory and call, so most files cost a test of their name.
 */
export function filterTree(entries: readonly TreeEntry[], scope: Scope, base: string, recursive: boolean): TreeEntry[] {
  const judges = new DirJudges(scope);
  return recursive ? filterTreeRecursive(entries, judges, base) : filterTreeOneLevel(entries, judges, base);
}

/**
 * `scope.canRead` through per-directory tests (`readerIn`), memoised for one listing. Listings come grouped by
 * directory, so the directory of the previous file is checked first, without slicing the path.
 */
class DirJudges {
  private readonly scope: Scope;
  private readonly byDir = new Map<string, PathTest>();
  /** The directory of the last file judged, and its test. */
  private dir = '';
  private test: PathTest;
  /** True when the last `canRead` moved to another directory than the file before. */
  moved = true;

  constructor(scope: Scope) {
    this.scope = scope;
    this.test = readerIn(scope, '');
    this.byDir.set('', this.test);
  }

  /** `scope.canRead(path)`, where `parentEnd` is `path.lastIndexOf('/')`. */
  canRead(path: string, parentEnd: number): boolean {
    const end = parentEnd < 0 ? 0 : parentEnd;
    this.moved = end !== this.dir.length || !path.startsWith(this.dir);
    if (this.moved) {
      const dir = path.slice(0, end);
      let test = this.byDir.get(dir);
      if (test === undefined) {
        test = readerIn(this.scope, dir);
        this.byDir.set(dir, test);
      }
      this.dir = dir;
      this.test = test;
    }
    return this.test(path);
  }
}

// The position after which a `/` separates a path below `base` from its parent chain (the root has no prefix).
function baseEnd(base: string): number {
  return base === '' ? 0 : base.length;
}

function filterTreeRecursive(entries: readonly TreeEntry[], judges: DirJudges, base: string): TreeEntry[] {
  const stop = baseEnd(base);
  const visibleDirs = new Set<string>();
  const kept = new Uint8Array(entries.length);
  // True once the current directory's ancestors are marked: the files after it in the same directory need nothing.
  let marked = false;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    const path = e.path;
    if (e.type === 'dir' || !isWithin(path, base) || path === base) continue;
    const parentEnd = path.lastIndexOf('/');
    const readable = judges.canRead(path, parentEnd);
    if (judges.moved) marked = false;
    if (!readable) continue;
    kept[i] = 1;
    if (marked) continue;
    marked = true;
    // Every ancestor strictly between `base` and the file, nearest first (what repeated `parentOf` yields).
    for (let end = parentEnd; end > stop; end = path.lastIndexOf('/', end - 1)) {
      const d = path.slice(0, end);
      if (visibleDirs.has(d)) break;
      visibleDirs.add(d);
    }
  }
  const out: TreeEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    if (kept[i] === 1 || (e.type === 'dir' && visibleDirs.has(e.path))) out.push(e);
  }
  return out;
}

function filterTreeOneLevel(entries: readonly TreeEntry[], judges: DirJudges, base: string): TreeEntry[] {
  const stop = baseEnd(base);
  const visibleChildren = new Set<string>();
  // 1: a readable file directly in `base`; 2: a directory directly in `base` (shown when it holds a readable file).
  const mark = new Uint8Array(entries.length);
  // The child of `base` the previous file lay in, and whether it is known visible: files come grouped by child.
  let child = '';
  let childVisible = false;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    const path = e.path;
    if (e.type === 'dir') {
      if (isChildOf(path, base)) mark[i] = 2;
      continue;
    }
    if (!isWithin(path, base) || path === base) continue;
    // Still in the previous file's child directory: nothing to learn unless it is not yet known visible.
    const same = child !== '' && path.startsWith(child) && path.charCodeAt(child.length) === 0x2f;
    if (same && childVisible) continue;
    // The first `/` past `base` ends the child of `base` this file lies in; none means the file is a direct child.
    const cut = same ? child.length : path.indexOf('/', stop + 1);
    if (cut < 0) {
      if (judges.canRead(path, path.lastIndexOf('/'))) mark[i] = 1;
      continue;
    }
    if (!same) {
      child = path.slice(0, cut);
      childVisible = visibleChildren.has(child);
      if (childVisible) continue;
    }
    if (judges.canRead(path, path.lastIndexOf('/'))) {
      visibleChildren.add(child);
      childVisible = true;
    }
  }
  const out: TreeEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    if (mark[i] === 1 || (mark[i] === 2 && visibleChildren.has(e.path))) out.push(e);
  }
  return out;
}

/** `parentOf(path) === base`, without slicing. */
function isChildOf(path: string, base: string): boolean {
  const i = path.lastIndexOf('/');
  return i < 0 ? base === '' : i === base.length && path.startsWith(base);
}

/** The result of cutting a commit to a scope. */
export type CommitView =
  { kind: 'visible'; commit: CommitDetail; omitted_count: number; stats: CommitStats } | { kind: 'invisible' };

/** Whole-file views of the visible sides of boundary-crossing renames, keyed by `wholeKey`. */
export type WholeViews = ReadonlyMap<string, WholeChange>;

/** The key of one visible side in `WholeViews`. */
export const wholeKey = (side: 'added' | 'removed', path: string): string => `${side}:${path}`;

/**
 * Keeps the files of a commit the scope may read, as git would list them without rename detection, among visible
 * files only. The upstreams pair renames (and copies) over the whole tree, before any cut: whether a visible delete
 * is paired, with which add, and so its counts, place and page depend on hidden files (a hidden exact copy steals the
 * pairing). So every rename is split into its delete and its add, and a copy into its add (its source did not
 * change); each visible half is shown as an unpaired add or delete, with the counts and patch of the whole file (from
 * `whole`, read by the caller; without it the counts keep only that side of the paired counts and no patch is shown),
 * and each hidden half is counted like any other hidden change. The list is then ordered by path, so no position
 * tells where git put a pair.
 *
 * A side listed in `badLinks` (a symlink whose target the scope cannot read) is as absent as the link is from
 * `get_tree`: a change with no other visible side disappears (counted like a hidden file), one whose other side is
 * visible reads as that side's add or delete.
 * A commit with no readable file is invisible: "not found", never an empty ghost.
 *
 * `omitted_count` never counts a file the perimeter may write but not read. The agent authors commits on such
 * paths, so counting them would turn its own commit into an oracle: "delete drop/x" changes the tree only when
 * drop/x existed, "write drop/x = guess" only when the guess is wrong.
 */
export function filterCommit(
  commit: CommitDetail,
  scope: Scope,
  whole: WholeViews = new Map(),
  badLinks: ReadonlySet<string> = new Set(),
): CommitView {
  const files: CommitFile[] = [];
  let omitted = 0;
  const count = (path: string) => {
    if (!scope.canWrite(path)) omitted++;
  };
  const seen = (side: LinkSide, path: string) => scope.canRead(path) && !badLinks.has(linkKey(side, path));
  for (const f of commit.files) {
    const prev = f.previous_path;
    if (prev !== undefined && (f.status === 'renamed' || f.status === 'copied')) {
      // Two changes once unpaired: the add of `path`, and (for a rename) the delete of `prev`.
      if (f.status === 'renamed') {
        if (seen('old', prev)) files.push(visibleSide(prev, 'removed', f, whole));
        else count(prev);
      }
      if (seen('new', f.path)) files.push(visibleSide(f.path, 'added', f, whole));
      else count(f.path);
      continue;
    }
    const path = prev ?? f.path;
    const oldSide = f.status !== 'added' && seen('old', path);
    const newSide = f.status !== 'removed' && seen('new', f.path);
    const hasOld = f.status !== 'added';
    const hasNew = f.status !== 'removed';
    if ((oldSide || !hasOld) && (newSide || !hasNew) && (oldSide || newSide)) files.push(f);
    else if (oldSide) files.push(visibleSide(path, 'removed', f, whole));
    else if (newSide) files.push(visibleSide(f.path, 'added', f, whole));
    else count(f.path);
  }
  if (files.length === 0) return { kind: 'invisible' };
  files.sort((x, y) => byPath(x.path, y.path));
  // Copy the header field by field: a spread would carry any extra upstream field (a whole-commit `stats`, say).
  const { sha, message, author, committer, parents } = commit;
  const cut: CommitDetail = { sha, message, author, committer, parents, files };
  return { kind: 'visible', commit: cut, omitted_count: omitted, stats: statsOf(files) };
}

/** git's path order for names of one level or many: code point by code point (UTF-8 byte order). */
function byPath(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/**
 * The visible sides of the changes `filterCommit` shows unpaired, whose whole-file views it wants: both sides of every
 * rename, the new side of every copy (at the commit: `added`; at its first parent: `removed`).
 */
export function unpairedSides(commit: CommitDetail, scope: Scope): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const f of commit.files) {
    const prev = f.previous_path;
    if (prev === undefined || (f.status !== 'renamed' && f.status !== 'copied')) continue;
    if (scope.canRead(f.path)) added.push(f.path);
    if (f.status === 'renamed' && scope.canRead(prev)) removed.push(prev);
  }
  return { added, removed };
}

function visibleSide(path: string, side: 'added' | 'removed', f: CommitFile, whole: WholeViews): CommitFile {
  const w = whole.get(wholeKey(side, path));
  if (w)
    return {
      path,
      status: side,
      additions: w.additions,
      deletions: w.deletions,
      ...(w.patch !== undefined ? { patch: w.patch } : {}),
    };
  // Known wart (no bytes supplied, as in history verification): the counts keep only this side, no patch.
  return side === 'added'
    ? { path, status: 'added', additions: f.additions, deletions: 0 }
    : { path, status: 'removed', additions: 0, deletions: f.deletions };
}

/** Sums visible file counts. */
export function statsOf(files: readonly CommitFile[]): CommitStats {
  let additions = 0;
  let deletions = 0;
  for (const f of files) {
    additions += f.additions;
    deletions += f.deletions;
  }
  return { additions, deletions, total: additions + deletions };
}

/**
 * Judges a listed commit from the paths it touches, when the upstream provided them:
 * `true` shows it, `false` hides it, `undefined` means "unknown, fetch the commit and use filterCommit".
 */
export function touchesReadable(commit: CommitSummary, scope: Scope): boolean | undefined {
  if (!commit.files) return undefined;
  return commit.files.some((p) => scope.canRead(p));
}
