import type { CommitDetail, CommitFile, CommitStats, CommitSummary, TreeEntry } from './model.js';
import { isWithin, parentOf } from './path.js';
import type { Scope } from './scope.js';
import type { WholeChange } from './wholefile.js';

/**
 * Cuts a recursive listing under `base` to what the scope may read. A file shows when readable; a directory shows
 * only when at least one readable file lies below it, so an empty-looking directory never hints at hidden files.
 * With `recursive: false` only the direct children of `base` are returned, still judged on their whole subtree.
 *
 * One pass judges the files; a directory's verdict is settled once (the first readable file below it marks it and
 * every ancestor up to `base`, and the walk up stops at the first ancestor already marked). A one-level listing only
 * needs to know whether each child directory has some readable file, so once one is found the rest of that subtree is
 * not judged at all.
 */
export function filterTree(
  entries: readonly TreeEntry[],
  scope: Scope,
  base: string,
  recursive: boolean,
): TreeEntry[] {
  return recursive ? filterTreeRecursive(entries, scope, base) : filterTreeOneLevel(entries, scope, base);
}

// The position after which a `/` separates a path below `base` from its parent chain (the root has no prefix).
function baseEnd(base: string): number {
  return base === '' ? 0 : base.length;
}

function filterTreeRecursive(entries: readonly TreeEntry[], scope: Scope, base: string): TreeEntry[] {
  const stop = baseEnd(base);
  const visibleDirs = new Set<string>();
  const kept = new Uint8Array(entries.length);
  // The parent last marked visible: listings come grouped by directory, so most files need no slice or lookup.
  let lastParent = '';
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    const path = e.path;
    if (e.type === 'dir' || !isWithin(path, base) || path === base) continue;
    if (!scope.canRead(path)) continue;
    kept[i] = 1;
    const parentEnd = path.lastIndexOf('/');
    if (parentEnd > stop && parentEnd === lastParent.length && path.startsWith(lastParent)) continue;
    if (parentEnd > stop) lastParent = path.slice(0, parentEnd);
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

function filterTreeOneLevel(entries: readonly TreeEntry[], scope: Scope, base: string): TreeEntry[] {
  const stop = baseEnd(base);
  const visibleChildren = new Set<string>();
  const kept = new Uint8Array(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    const path = e.path;
    if (e.type === 'dir' || !isWithin(path, base) || path === base) continue;
    // The first `/` past `base` ends the child of `base` this file lies in; none means the file is a direct child.
    const cut = path.indexOf('/', stop + 1);
    if (cut < 0) {
      if (scope.canRead(path)) kept[i] = 1;
      continue;
    }
    const child = path.slice(0, cut);
    if (visibleChildren.has(child)) continue;
    if (scope.canRead(path)) visibleChildren.add(child);
  }
  const out: TreeEntry[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as TreeEntry;
    if (parentOf(e.path) !== base) continue;
    if (kept[i] === 1 || (e.type === 'dir' && visibleChildren.has(e.path))) out.push(e);
  }
  return out;
}

/** The result of cutting a commit to a scope. */
export type CommitView =
  | { kind: 'visible'; commit: CommitDetail; omitted_count: number; stats: CommitStats }
  | { kind: 'invisible' };

/** Whole-file views of the visible sides of boundary-crossing renames, keyed by `wholeKey`. */
export type WholeViews = ReadonlyMap<string, WholeChange>;

/** The key of one visible side in `WholeViews`. */
export const wholeKey = (side: 'added' | 'removed', path: string): string => `${side}:${path}`;

/**
 * Keeps the files of a commit the scope may read. A rename across the boundary is shown as the unpaired add or
 * delete of its visible side would be: without the hidden path, with the counts and patch of the whole file (from
 * `whole`, read by the caller; without it the counts keep only the visible side and no patch is shown), and with
 * its hidden side counted like any other hidden change. Pairing itself depends on how similar the hidden file is,
 * so nothing about it may show.
 * A commit with no readable file is invisible: "not found", never an empty ghost.
 *
 * `omitted_count` never counts a file the perimeter may write but not read. The agent authors commits on such
 * paths, so counting them would turn its own commit into an oracle: "delete drop/x" changes the tree only when
 * drop/x existed, "write drop/x = guess" only when the guess is wrong.
 */
export function filterCommit(commit: CommitDetail, scope: Scope, whole: WholeViews = new Map()): CommitView {
  const files: CommitFile[] = [];
  let omitted = 0;
  const count = (path: string) => {
    if (!scope.canWrite(path)) omitted++;
  };
  for (const f of commit.files) {
    const prev = f.previous_path;
    const newSeen = scope.canRead(f.path);
    if (prev === undefined || (newSeen && scope.canRead(prev))) {
      if (newSeen) files.push(f);
      else count(f.path);
      continue;
    }
    const oldSeen = scope.canRead(prev);
    const renamed = f.status === 'renamed';
    if (newSeen) {
      files.push(visibleSide(f.path, 'added', f, whole));
      if (renamed) count(prev);
    } else if (oldSeen && renamed) {
      files.push(visibleSide(prev, 'removed', f, whole));
      count(f.path);
    } else {
      // Both sides hidden (or a copy out of the scope, whose source did not change): one hidden entry.
      if (!scope.canWrite(f.path) && !scope.canWrite(prev)) omitted++;
    }
  }
  if (files.length === 0) return { kind: 'invisible' };
  // Copy the header field by field: a spread would carry any extra upstream field (a whole-commit `stats`, say).
  const { sha, message, author, committer, parents } = commit;
  const cut: CommitDetail = { sha, message, author, committer, parents, files };
  return { kind: 'visible', commit: cut, omitted_count: omitted, stats: statsOf(files) };
}

/** The visible sides of boundary-crossing renames and copies, whose whole-file views `filterCommit` wants. */
export function crossingSides(commit: CommitDetail, scope: Scope): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const f of commit.files) {
    const prev = f.previous_path;
    if (prev === undefined) continue;
    const newSeen = scope.canRead(f.path);
    const oldSeen = scope.canRead(prev);
    if (newSeen && !oldSeen) added.push(f.path);
    else if (oldSeen && !newSeen && f.status === 'renamed') removed.push(prev);
  }
  return { added, removed };
}

function visibleSide(path: string, side: 'added' | 'removed', f: CommitFile, whole: WholeViews): CommitFile {
  const w = whole.get(wholeKey(side, path));
  if (w) return { path, status: side, additions: w.additions, deletions: w.deletions, ...(w.patch !== undefined ? { patch: w.patch } : {}) };
  // Known wart (no bytes supplied, as in history verification): the counts keep only the visible side, no patch.
  return side === 'added' ? { path, status: 'added', additions: f.additions, deletions: 0 } : { path, status: 'removed', additions: 0, deletions: f.deletions };
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
